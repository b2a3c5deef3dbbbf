"""Sampling the trained and the starting policy on the same prompts, through the training part's ``paint``.

``aquarelle.train.sample.paint(policy, prompt, mode=..., ...) -> dict`` (docs/CONTRACTS.md)
returns a rollout-shaped dict. The trained policy is the run directory itself
(``paint`` takes MODEL_OR_RUN); the starting policy is the model GRPO started
from, read from the run's config. If the sample module offers ``load_policy``
each policy is loaded once, not once per painting.
"""

from __future__ import annotations

import inspect
import math
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

from .prompts import EvalPrompt
from .run import Rollout, Run

#: The most paintings eval draws per policy per prompt split. Each is a policy generation plus a render, seconds to
#: minutes: a thousand already says all a comparison can, and an unbounded count (``--samples 99999999999999999999``)
#: hung building its plan, eating memory, before any model loaded.
MAX_SAMPLES = 1000

#: Config keys naming the policy GRPO started from (the warm start when there was one), most specific first.
START_KEYS = ("start_policy", "policy", "warm_start", "init_model", "sft_checkpoint", "model.name", "model")


class SamplingError(RuntimeError):
    """The policies cannot be sampled at all (no paint function, no starting model); one line."""


def start_policy(run: Run) -> str:
    """The untrained starting policy's model id or path, from the run's config."""
    for key in START_KEYS:
        v = run.setting(key)
        if isinstance(v, str) and v:
            return v
    raise SamplingError(f"run {run.name}: config.json does not name the starting model (one of {', '.join(START_KEYS)})")


def run_temperature(run: Run) -> float:
    """The temperature GRPO sampled the run's rollouts at (``generation.temperature``, else the config's default).

    Why eval's default: ``paint`` on its own samples at 0.7, a sharper distribution than the one training
    optimised (1.0 by default); comparing the trained and starting policies there says less about what GRPO did.
    """
    t = run.setting("generation.temperature")
    if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0:
        return float(t)
    from aquarelle.train.config import GenerationSection

    return float(GenerationSection.model_fields["temperature"].default)


def trained_policy(run: Run) -> str:
    """The run's final policy: the run directory (``paint`` resolves its checkpoint or adapter)."""
    return str(run.path)


def _paint_fn() -> tuple[Callable[..., dict], Callable[..., Any] | None]:
    try:
        from aquarelle.train import sample  # type: ignore
    except ImportError as e:
        raise SamplingError(f"aquarelle.train.sample is not available ({e}); pass --samples-file to evaluate "
                            "pre-sampled paintings") from None
    paint = getattr(sample, "paint", None)
    if not callable(paint):
        raise SamplingError("aquarelle.train.sample has no paint() function")
    return paint, getattr(sample, "load_policy", None)


def _accepts(fn: Callable, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _store_image(res: dict, run: Run, rel_dir: str, stem: str) -> str | None:
    """Make the sample's image a path relative to the run (copying or saving it there)."""
    img = res.get("image")
    dest = run.path / rel_dir / f"{stem}.png"
    dest.parent.mkdir(parents=True, exist_ok=True)
    if img is None:
        arr = res.get("image_array")
        if arr is None:
            return None
        from PIL import Image

        Image.fromarray(arr).save(dest)
        return str(dest.relative_to(run.path))
    if not isinstance(img, (str, Path)):  # an array
        from PIL import Image

        Image.fromarray(img).save(dest)
        return str(dest.relative_to(run.path))
    p = Path(img)
    if not p.is_absolute():
        if (run.path / p).exists():
            return str(p)
        p = Path.cwd() / p
    if not p.exists():
        return None
    try:
        return str(p.resolve().relative_to(run.path.resolve()))
    except ValueError:
        shutil.copyfile(p, dest)
        return str(dest.relative_to(run.path))


def sample_policies(run: Run, prompts: list[EvalPrompt], k: int, *, seed: int = 0, progress: bool = True,
                    sink: Path | None = None, image_dir: str = "eval",
                    temperature: float | None = None) -> tuple[list[Rollout], list[dict]]:
    """K paintings per policy (trained, start) spread over the prompts; returns rollouts and their raw rows
    (each also appended to ``sink`` when given). Images go under ``RUN/<image_dir>/<split>/<policy>/``.
    Both policies sample at ``temperature``, by default the run's own (``run_temperature``); each row says which.

    A painting that fails for infrastructure reasons is kept with reward None and
    its reason, never dropped silently and never scored 0.
    """
    if not 1 <= k <= MAX_SAMPLES:
        raise SamplingError(f"--samples must be 1-{MAX_SAMPLES}, not {k}")
    if not prompts:
        raise SamplingError("no prompts to sample on")
    paint, load_policy = _paint_fn()
    policies = {"trained": trained_policy(run), "start": start_policy(run)}
    mode = run.mode or "tools"
    train_config = _train_config(run)
    _check_env_servers(train_config, config_file=str(run.path / "config.json"))
    temperature = run_temperature(run) if temperature is None else temperature
    chosen = spread(prompts, k)
    plan = [(name, i, chosen[i]) for name in policies for i in range(k)]
    rows: list[dict] = []
    loaded: dict[str, Any] = {}
    from rich.progress import Progress

    with Progress(transient=True, disable=not progress, console=_stderr_console()) as bar:
        task = bar.add_task("sampling trained and starting policies", total=len(plan))
        for name, i, p in plan:
            if name not in loaded:
                try:
                    loaded[name] = load_policy(policies[name]) if load_policy else policies[name]
                except Exception as e:  # noqa: BLE001 - a missing checkpoint or model: one line, no traceback
                    raise SamplingError(f"cannot load the {name} policy {policies[name]!r}: "
                                        f"{type(e).__name__}: {_first_line(e)}") from None
            kwargs: dict[str, Any] = {"mode": mode}
            rel_dir = f"{image_dir}/{p.split}/{name}"
            png = run.path / rel_dir / f"{i:03d}-{_safe(p.id)}.png"
            png.parent.mkdir(parents=True, exist_ok=True)
            for key, val in (("seed", seed + i), ("out_png", str(png)), ("prompt_id", p.id), ("split", p.split),
                             ("config", train_config), ("temperature", temperature)):
                if val is not None and _accepts(paint, key):
                    kwargs[key] = val
            try:
                res = dict(paint(loaded[name], p.prompt, **kwargs))
            except Exception as e:  # an infrastructure failure of one sample: keep it, reward None, say why
                res = {"reward": None, "error": f"{type(e).__name__}: {_first_line(e)}"}
                # a server that went down would cost every sample left the client's reconnect time: stop here
                _check_env_servers(train_config, when=f"after {len(rows) + 1} of {len(plan)} samples",
                                   config_file=str(run.path / "config.json"))
            res.update(policy=name, prompt=p.prompt, prompt_id=p.id, split=p.split, step=res.get("step", 0),
                       group=i, temperature=kwargs.get("temperature"), eval_seed=seed)
            res["image"] = _store_image(res, run, rel_dir, f"{i:03d}-{_safe(p.id)}")
            for bulky in ("image_array", "png_b64"):
                res.pop(bulky, None)
            rows.append({k2: v for k2, v in res.items() if _jsonable(v)})
            if sink is not None:  # appended as it comes: an interrupted eval keeps what it sampled
                import json

                with open(sink, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rows[-1]) + "\n")
            bar.advance(task)
    if rows and all(r.get("reward") is None and r.get("error") for r in rows):
        raise SamplingError(f"every sample failed; the first: {rows[0]['error']}")
    return [Rollout.from_dict(r, i) for i, r in enumerate(rows)], rows


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:300] if text else "(no message)"


def spread(prompts: list[EvalPrompt], k: int) -> list[EvalPrompt]:
    """K prompts evenly spaced over the list (it is ordered by subject, so every subject gets its turn), cycling when
    K exceeds it."""
    n = len(prompts)
    if k >= n:
        return [prompts[i % n] for i in range(k)]
    return [prompts[(i * n) // k] for i in range(k)]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:60] or "prompt"


def _check_env_servers(cfg: Any, when: str = "", config_file: str | None = None) -> None:
    """The run's environment servers answer and score as the run did, checked before any policy loads and again
    after a sample fails: a server that is down otherwise costs each sample its painting (and, in tools mode,
    minutes of reconnecting) before it is recorded as reward None, and one that scores with other scorers makes
    the eval's rewards incomparable with training's. Every mode paints through them: sketch mode scores there."""
    urls = getattr(getattr(cfg, "env", None), "urls", None)
    if not urls:
        return
    from aquarelle.train.config import ConfigError
    from aquarelle.train.preflight import check_env_urls

    try:
        check_env_urls(urls, cfg.reward.scorer_config(), config_file=config_file)
    except ConfigError as e:
        raise SamplingError(f"{e} (the run's env.urls{', ' + when if when else ''})") from None


def _train_config(run: Run) -> Any:
    """The run's own training config object for ``paint`` (its scorers, action space, budgets), when it has one."""
    data = run.config.get("config")
    if not isinstance(data, dict):
        return None
    try:
        from aquarelle.train.config import TrainConfig  # type: ignore

        return TrainConfig.model_validate(data)
    except Exception:  # noqa: BLE001 - an older or foreign config: paint falls back to its defaults
        return None


def _jsonable(v: Any) -> bool:
    import json

    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


def _stderr_console():
    from rich.console import Console

    return Console(file=sys.stderr)
