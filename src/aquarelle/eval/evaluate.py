"""``aquarelle eval RUN``: the run's metrics plus its trained and starting policies sampled on the same prompts.

Writes RUN/eval.json (and RUN/eval_samples.jsonl with the sampled paintings
under RUN/eval/) and prints a table. Everything the report and compare pages
show comes from this one object.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any, Iterable

from ..provenance import provenance
from . import images, metrics, verdicts
from .run import PRESET_WEIGHTS, Rollout, Run, RunError, load_run, load_samples
from .sampling import run_temperature

EVAL_JSON = "eval.json"
SAMPLES_JSONL = "eval_samples.jsonl"
SAMPLES_DIR = "eval"  # the sampled paintings, RUN/eval/<split>/<policy>/
STAGING_DIR = "eval.partial"  # where a sampling in progress puts them


def loader(run: Run):
    """Image loader for a run's rollouts (paths relative to the run)."""
    return lambda r: images.load(run.image_path(r))


def training_metrics(run: Run) -> dict[str, Any]:
    """Every metric computed from the run's own rollouts (no sampling). A long run's (eval, and report and compare
    when it has no eval.json or trained on since) is said on stderr: they sat silent for minutes."""
    rs = [r for r in run.rollouts if r.policy is None]
    if len(rs) > metrics.MAX_IMAGES:
        print(f"measuring {len(rs):,} training rollouts of {run.name} (the image measures from at most "
              f"{metrics.MAX_IMAGES:,} of their paintings)", file=sys.stderr, flush=True)
    load = loader(run)
    return {
        "reward_trend": metrics.reward_trend(rs),
        "term_attribution": metrics.term_attribution(rs, run.weights),
        "scorer_agreement": metrics.scorer_agreement(rs, run.judge_references),
        "diversity": metrics.diversity(rs, load),
        "tool_adherence": metrics.tool_adherence(rs, run.action_space),
        "bad_rollouts": metrics.bad_rollouts(rs),
        "coverage": metrics.coverage_stats(rs),
    }


def late_steps(n: int) -> int:
    """How many of a run's last steps stand for its trained policy on training prompts: its last third up to 30
    steps, its last tenth past 100 (at least 10 between). Why: the last third of a long run is a policy hundreds of
    steps older than the one sampled on held-out prompts; a run still improving then read "significantly better on
    held-out prompts" with no true gap (-0.07, interval -0.09 to -0.06, at 2,000 steps)."""
    return max(math.ceil(n / 10), min(math.ceil(n / 3), 10))


def _late_training(run: Run) -> tuple[list[Rollout], int]:
    """The training rollouts of the run's last ``late_steps`` steps, and that count."""
    rs = [r for r in run.rollouts if r.policy is None and r.split != "heldout"]
    steps = metrics.steps_of(rs)
    if len(steps) < 3:
        return rs, len(steps)
    k = late_steps(len(steps))
    keep = set(steps[-k:])
    return [r for r in rs if r.step in keep], k


def not_trained_on(samples: list[Rollout], prompts: Iterable[str]) -> list[Rollout]:
    """``samples`` less the held-out ones on ``prompts`` (``heldout.trained_on``): left out of the held-out numbers
    here and of the report's held-out gallery alike."""
    drop = set(prompts)
    return [r for r in samples if not (r.split == "heldout" and r.prompt in drop)]


def heldout_section(run: Run, samples: list[Rollout]) -> dict[str, Any]:
    """Held-out vs training prompts for the trained policy, and trained vs starting policy on held-out prompts."""
    load = loader(run)
    space = run.action_space
    pick = lambda pol, split: [r for r in samples if r.policy == pol and r.split == split]  # noqa: E731
    # a "held-out" sample whose prompt the run trained on (a samples file from elsewhere; eval's own sampling never
    # picks one) would carry training into the held-out verdict: left out, and said
    trained_on = {r.prompt for r in run.rollouts if r.policy is None and r.split != "heldout"}
    leaked = sorted({r.prompt for r in samples if r.split == "heldout" and r.prompt in trained_on})
    samples = not_trained_on(samples, leaked)
    trained_ho, start_ho = pick("trained", "heldout"), pick("start", "heldout")
    trained_tr = pick("trained", "train")
    if trained_tr:
        train_side, source = trained_tr, "trained policy sampled on training prompts"
    else:
        train_side, k = _late_training(run)
        n = len(metrics.steps_of([r for r in run.rollouts if r.policy is None]))
        # (a run under 3 steps: all its rollouts, which the label said were its last third)
        source = f"training rollouts (last {k} of {n} steps)" if n >= 3 else \
            f"training rollouts (all {n} step{'' if n == 1 else 's'}: too few to take the last ones)"
    if trained_ho:
        out = metrics.heldout(train_side, trained_ho, load, space)
    else:
        out = {"train": metrics.summary(train_side, load, space), "heldout": None, "gap": {}, "holds": None,
               "margin": metrics.HOLD_MARGIN, "reason": "no held-out samples (run `aquarelle eval RUN --prompts heldout`)"}
    out["train_source"] = source
    out["trained_on"] = leaked
    out["start"] = metrics.summary(start_ho, load, space) if start_ho else None
    out["trained_vs_start"] = metrics.policy_comparison(trained_ho, start_ho) if trained_ho and start_ho else None
    return out


def policies_section(run: Run, samples: list[Rollout]) -> dict[str, Any]:
    load = loader(run)
    out: dict[str, Any] = {}
    for pol in ("trained", "start"):
        out[pol] = {}
        for split in ("heldout", "train"):
            rs = [r for r in samples if r.policy == pol and r.split == split]
            if rs:
                out[pol][split] = metrics.summary(rs, load, run.action_space)
    tr = [r for r in samples if r.split == "train"]
    out["train_comparison"] = metrics.policy_comparison([r for r in tr if r.policy == "trained"],
                                                        [r for r in tr if r.policy == "start"]) if tr else None
    return out


def evaluate(run_dir: str | Path, *, prompts: str = "heldout", samples: int = 8, samples_file: str | Path | None = None,
             seed: int = 0, progress: bool = True, temperature: float | None = None,
             run: Run | None = None) -> dict[str, Any]:
    """Compute the eval object for a run, sampling the policies unless ``samples_file`` or ``samples == 0``
    (at ``temperature``, by default the one the run trained at: ``sampling.run_temperature``). ``prompts`` and
    ``samples`` are checked as the command line checks them (a ValueError line; ``prompts="nope"`` passed).
    ``run``: the run already loaded from ``run_dir`` (report and compare have it: loaded again, a report held two
    copies of every rollout at once)."""
    from .sampling import MAX_SAMPLES

    if prompts not in ("heldout", "train", "all"):
        raise ValueError(f"prompts must be heldout, train or all, not {prompts!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or not 0 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be a whole number 0-{MAX_SAMPLES}, not {samples!r}")
    run = run if run is not None else load_run(run_dir)
    ev: dict[str, Any] = {
        "run": run.name, "path": str(run.path), "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "preset": run.preset, "weights": run.weights, "mode": run.mode, "action_space": run.action_space,
        "steps": run.trained_steps, "rollout_steps": len(metrics.steps_of(run.rollouts)), "rollouts": len(run.rollouts),
        "skipped_lines": run.skipped_lines,
    }
    ev.update(training_metrics(run))

    sampled: list[Rollout] = []
    # (``samples``: what was asked for; a samples file's own count is ``n``)
    sampling: dict[str, Any] = {"prompts": prompts, "samples": None if samples_file is not None else samples,
                                "source": None, "reason": None}
    if samples_file is not None:
        path = Path(samples_file)
        if not path.exists():
            raise FileNotFoundError(f"samples file {path} does not exist")
        sampled = load_samples(path)
        if prompts != "all":
            sampled = [r for r in sampled if r.split == prompts]
        if not sampled:  # an eval of nothing would replace a good eval.json
            raise RunError(f"samples file {path} holds no readable samples"
                           + ("" if prompts == "all" else f" for --prompts {prompts}"))
        # where a report finds it again: relative to the run when inside it (the run may move), else absolute
        resolved = path.resolve()
        sampling["source"] = str(resolved.relative_to(run.path.resolve())) \
            if resolved.is_relative_to(run.path.resolve()) else str(resolved)
    elif samples > 0:
        from . import prompts as prompt_mod
        from .sampling import sample_policies

        chosen = prompt_mod.select(run, prompts)
        groups = [[p for p in chosen if p.split == s] for s in ("train", "heldout")] if prompts == "all" else [chosen]
        partial = run.path / (SAMPLES_JSONL + ".partial")  # each painting is kept as soon as it is made
        staging = run.path / STAGING_DIR  # ... and its image beside it, not over the last eval's
        partial.unlink(missing_ok=True)
        shutil.rmtree(staging, ignore_errors=True)
        for ps in groups:  # K per policy on each split
            if ps:
                sample_policies(run, ps, samples, seed=seed, progress=progress, sink=partial, image_dir=STAGING_DIR,
                                temperature=temperature)
        publish_samples(run.path, partial, staging)
        sampled = load_samples(run.path / SAMPLES_JSONL)
        sampling["source"] = SAMPLES_JSONL
    else:
        sampled, sampling["source"], sampling["reason"] = _last_samples(run.path, prompts)
    sampling["unscored_reasons"] = metrics.unscored_reasons(sampled)
    sampling["unscored"] = sum(r.reward is None for r in sampled)
    sampling["n"] = len(sampled)
    sampling["temperature"] = temperature_of(sampled)
    sampling["run_temperature"] = run_temperature(run)  # the training rollouts' own, which the held-out gap reads
    sampling["seed"] = recorded(sampled, "eval_seed", int)  # the --seed the samples were drawn with
    ev["sampling"] = sampling
    ev["provenance"] = provenance()  # the code and packages that computed this eval
    ev["heldout"] = heldout_section(run, sampled)
    ev["sampled_checks"] = metrics.sampled_checks(
        ev["heldout"].get("heldout"), ev["heldout"].get("start"),
        paired=[[r for r in not_trained_on(sampled, ev["heldout"]["trained_on"]) if r.policy == pol and r.split == "heldout"]
                for pol in ("trained", "start")])
    ev["policies"] = policies_section(run, sampled)
    ev["scorer_probes"] = scorer_probes(run)
    trained = [r for r in sampled if r.policy == "trained"]
    ev["tool_adherence_samples"] = metrics.tool_adherence(trained, run.action_space) if trained else None
    ev = finite(ev)
    ev["verdicts"] = verdicts.all_verdicts(ev)
    return ev


def scorer_probes(run: Run) -> dict[str, Any]:
    """The run's own scorers and weights on ``rewards.probes`` (paintings of nothing) against the pool's love
    paintings, or ``{"skipped": why}``: measured when every scorer the weights count runs here (the local ones, a
    few seconds); a service's are probed by ``aquarelle pool validate --config RUN/config.json``."""
    from ..rewards.config import RewardError, load_config
    from ..rewards.pool import pool_digest

    path = run.path / "config.json"
    try:
        cfg = load_config(path)
    except (OSError, RewardError) as e:
        return {"skipped": f"the run's reward config cannot be read: {str(e).splitlines()[0]}"}
    w = cfg.weights_resolved()
    remote = [f"{t} ({b})" for t, b in (("judge", cfg.judge_backend), ("preference", cfg.preference_backend))
              if getattr(w, t) > 0 and b != "local"]
    if remote:
        return {"skipped": f"the run's {' and '.join(remote)} is a service: `aquarelle pool validate --config "
                           f"{path}` probes it"}
    return _probes_of(cfg.model_dump_json(), pool_digest(cfg.pool_dir))


@functools.lru_cache(maxsize=8)
def _probes_of(config_json: str, digest: str | None) -> dict[str, Any]:
    """Probes of one reward config and pool (``digest``: the key only), once a process (compare and report
    evaluate several runs of one config)."""
    from ..rewards.config import RewardConfig, RewardError
    from ..rewards.probes import probe_scorers

    try:
        return probe_scorers(RewardConfig.model_validate_json(config_json)).as_dict()
    except RewardError as e:
        return {"skipped": str(e).splitlines()[0]}
    except Exception as e:  # noqa: BLE001 - our sandbox or renderer failed: no measurement, said, not eval's end
        return {"skipped": f"the probes could not be scored: {type(e).__name__}: "
                           f"{(str(e).splitlines() or [''])[0]}"}


def recorded(samples: list[Rollout], key: str, kind: type = float) -> Any:
    """A setting the samples were drawn with, as their rows record it under ``key``: one value, the distinct values
    of a mixed file (sorted), or None when no row says (samples from before eval recorded it)."""
    vals = sorted({kind(t) for r in samples if isinstance(t := r.extra.get(key), (int, float))
                   and not isinstance(t, bool)})
    return vals[0] if len(vals) == 1 else (vals or None)


def temperature_of(samples: list[Rollout]) -> float | list[float] | None:
    """The temperature the samples were drawn at (``recorded``)."""
    return recorded(samples, "temperature")


def temperature_text(temp: float | list[float] | None) -> str:
    """``sampling.temperature`` for people: ``1``, ``0.7 and 1`` (a mixed samples file) or ``not recorded``."""
    if temp is None:
        return "not recorded"
    return " and ".join(f"{t:g}" for t in (temp if isinstance(temp, list) else [temp]))


def _last_samples(run: Path, prompts: str) -> tuple[list[Rollout], str | None, str]:
    """``--samples 0`` (and a report rebuilding a stale eval.json): the last eval's paintings when they are still of
    the run's policy, so the held-out comparison is not dropped from eval.json while eval_samples.jsonl, which holds
    it, stays beside it. Samples older than the run's last checkpoint or metrics are of an earlier policy: unused."""
    path = run / SAMPLES_JSONL
    if not path.is_file():
        return [], None, "--samples 0: metrics from the training rollouts only"
    trained_at = max((p.stat().st_mtime for p in (run / "checkpoint", run / "metrics.jsonl") if p.exists()),
                     default=0.0)
    if path.stat().st_mtime < trained_at:
        return [], None, (f"--samples 0: {SAMPLES_JSONL} predates the run's last training, so it is not used; "
                          "metrics from the training rollouts only")
    sampled = [r for r in load_samples(path) if prompts == "all" or r.split == prompts]
    if not sampled:
        return [], None, (f"--samples 0: {SAMPLES_JSONL} holds no {prompts} samples; "
                          "metrics from the training rollouts only")
    return sampled, SAMPLES_JSONL, f"--samples 0: the last sampling's paintings ({SAMPLES_JSONL}), none drawn now"


def publish_samples(run: Path, partial: Path, staging: Path) -> None:
    """Make a finished sampling the run's samples: images to RUN/eval/, lines (paths rewritten) to eval_samples.jsonl.

    Why staged: a sampling that fails half way (a policy that does not load, Ctrl-C) used to
    have overwritten the previous eval's images already, so its eval_samples.jsonl and
    eval.json showed paintings they never scored. Until this point nothing of them changes.
    """
    prefix = STAGING_DIR + "/"
    lines = []
    for line in partial.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if isinstance(row.get("image"), str) and row["image"].startswith(prefix):
            row["image"] = SAMPLES_DIR + "/" + row["image"][len(prefix):]
        lines.append(json.dumps(row))
    tmp = run / (SAMPLES_JSONL + ".tmp")
    tmp.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    shutil.rmtree(run / SAMPLES_DIR, ignore_errors=True)
    if staging.is_dir():
        staging.rename(run / SAMPLES_DIR)
    tmp.replace(run / SAMPLES_JSONL)
    partial.unlink(missing_ok=True)


def finite(x: Any) -> Any:
    """The object with every non-finite float as None (strict JSON; a statistic that is not a number is null)."""
    import math

    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):  # numpy scalars
        return finite(x.item())
    return x


#: What the report and compare pages read from an eval object; an eval.json without one of them is stale.
REQUIRED_KEYS = ("weights", "steps", "rollouts", "reward_trend", "term_attribution", "scorer_agreement", "diversity",
                 "tool_adherence", "bad_rollouts", "coverage", "sampling", "heldout", "verdicts")


def write(run_dir: str | Path, ev: dict[str, Any]) -> Path:
    """Write RUN/eval.json whole or not at all (an interrupted write must not leave half an object behind, and a
    failed one no ``eval.json.tmp``)."""
    path = Path(run_dir) / EVAL_JSON
    check_writable(run_dir)
    tmp = path.with_name(EVAL_JSON + ".tmp")
    try:
        tmp.write_text(json.dumps(ev, indent=2, allow_nan=False), encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise RunError(f"cannot write {path}: {e.strerror or e.__class__.__name__}") from None
    return path


def check_writable(run_dir: str | Path) -> None:
    """RunError when RUN/eval.json is a directory: checked before sampling too, which takes minutes, not after
    (it was a bare "[Errno 21] Is a directory" then, with eval.json.tmp left behind)."""
    path = Path(run_dir) / EVAL_JSON
    if path.is_dir():
        raise RunError(f"{path} is a directory; move it away so eval can write its results there")


def read(run_dir: str | Path) -> dict[str, Any] | None:
    """A run's eval.json, or None when it has none, or an unreadable or stale one (``problem`` says which)."""
    return None if problem(run_dir) else json.loads((Path(run_dir) / EVAL_JSON).read_text(encoding="utf-8"))


def problem(run_dir: str | Path) -> str | None:
    """Why RUN/eval.json cannot be used ("missing", or what is wrong with it); None when it can."""
    path = Path(run_dir) / EVAL_JSON
    if not path.exists():
        return "missing"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:  # ValueError: bad JSON, not UTF-8
        return f"{path} cannot be read ({str(e).splitlines()[0][:120]})"
    if not isinstance(data, dict):
        return f"{path} does not hold a JSON object"
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        return f"{path} lacks {', '.join(missing[:3])} (damaged, or written by another version)"
    bad = _misshapen(data)
    if bad:
        return f"{path} has {bad} (damaged, or written by another version)"
    return None


#: Keys a later version added to a section: an eval.json written before them is read as it is (each reader takes
#: them with ``.get``), not rebuilt as damaged on every report and compare.
ADDED_KEYS = {"reward_trend": {"end"}, "diversity": {"sampled"}}


@functools.cache
def _section_keys() -> dict[str, frozenset[str]]:
    """The keys each training section must hold (its metrics on no rollouts, less ``ADDED_KEYS``)."""
    return {k: v - ADDED_KEYS.get(k, set()) for k, v in _written_keys().items()}


def _written_keys() -> dict[str, frozenset[str]]:
    w = dict(PRESET_WEIGHTS["judge-led"])
    return {
        "reward_trend": frozenset(metrics.reward_trend([])), "term_attribution": frozenset(metrics.term_attribution([], w)),
        "scorer_agreement": frozenset(metrics.scorer_agreement([], 4)), "diversity": frozenset(metrics.diversity([], None)),
        "tool_adherence": frozenset(metrics.tool_adherence([], "hf10")), "bad_rollouts": frozenset(metrics.bad_rollouts([])),
        "coverage": frozenset(metrics.coverage_stats([])),
    }


def _misshapen(data: dict[str, Any]) -> str | None:
    """What in an eval.json is not of the shape the report and compare read, or None: only its top-level keys were
    checked, so `"heldout": null`, a `reward_trend` without `thirds` or `"verdicts": []` reached them and ended in a
    traceback instead of a rebuild from the rollouts."""
    for name, keys in _section_keys().items():
        sec = data[name]
        if not isinstance(sec, dict):
            return f"{name} of type {type(sec).__name__}"
        lacking = sorted(keys - sec.keys())
        if lacking:
            return f"{name} without {', '.join(lacking[:3])}"
    if not isinstance(data["reward_trend"]["trend"], dict):
        return "reward_trend.trend that is not an object"
    for name in ("heldout", "sampling", "weights"):
        if not isinstance(data[name], dict):
            return f"{name} of type {type(data[name]).__name__}"
    v = data["verdicts"]
    if not isinstance(v, dict) or not all(isinstance(x, dict) and {"question", "text"} <= x.keys() for x in v.values()):
        return "verdicts that are not question/text objects"
    return None


def refreshed(run: Run, ev: dict[str, Any]) -> dict[str, Any]:
    """``ev`` (a run's eval.json) with what comes from the training rollouts recomputed when training went on after
    it (``train --resume``): the report did so, and ``compare`` showed the eval's old step count and verdicts beside
    it. The sampled policies' numbers stay as eval measured them."""
    if ev.get("rollouts") != len(run.rollouts):
        old_steps = ev.get("steps")
        ev.update(finite(training_metrics(run)), rollouts=len(run.rollouts), steps=run.trained_steps,
                  rollout_steps=len(metrics.steps_of(run.rollouts)))
        if isinstance(ev.get("sampling"), dict) and ev["sampling"].get("source"):
            # the held-out numbers beside the refreshed trend were of the earlier policy, unmarked
            ev["sampling"]["stale"] = (f"its samples are of the policy after {old_steps} steps and the run has "
                                       f"trained to {ev['steps']} since (`aquarelle eval` samples it again)")
        ev["verdicts"] = verdicts.all_verdicts(ev)
    return ev


def steps_text(ev: dict[str, Any]) -> str:
    """The run's length: its optimizer steps, and how many of them left rollouts when not all did ("4 steps (2 with
    rollouts)"; generation reuse: the per-step numbers skip the rest). The report's header, ``eval``'s table title and
    ``compare``'s steps column all say it so: the last two said "4 steps" beside a header's "4 steps (2 with
    rollouts)"."""
    k, n = ev.get("rollout_steps"), ev["steps"]
    return verdicts._plural(n, "step") + (f" ({k} with rollouts)" if isinstance(k, int) and k != n else "")


def preset_text(ev: dict[str, Any]) -> str:
    """The run's preset and the terms its config overrode ("judge-led, judge 0, preference 0.9"): a run that
    stated its own weights read as its bare preset in compare's column, eval's title and the report's header."""
    name = ev.get("preset")
    w = ev.get("weights") if isinstance(ev.get("weights"), dict) else {}
    base = PRESET_WEIGHTS.get(name or "judge-led", {})
    changed = [f"{t} {w[t]:g}" for t in base if isinstance(w.get(t), (int, float)) and abs(w[t] - base[t]) > 1e-9]
    return ", ".join([name or "custom", *changed])


def print_table(ev: dict[str, Any], console=None) -> None:
    """The eval object as a short rich table: the verdicts and the numbers behind them."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    head = Table(title=f"aquarelle eval: {escape(ev['run'])} ({preset_text(ev)}, {steps_text(ev)}, "
                       f"{ev['rollouts']} rollouts)", show_lines=True)
    head.add_column("question", style="bold", max_width=28)
    head.add_column("answer")
    head.add_column("why", overflow="fold")
    colour = {"yes": "green", "no": "red", "unclear": "yellow"}
    for key, v in ev["verdicts"].items():
        ans = v["answer"]
        if key == "gamed":  # "yes" is the bad answer here
            colour_ = {"yes": "red", "no": "green"}.get(ans, "yellow")
        else:
            colour_ = colour[ans]
        head.add_row(v["question"], f"[{colour_}]{ans}[/]", escape(v["text"]))
    console.print(head)
    h = ev.get("heldout") or {}
    pol = ev.get("policies") or {}
    tc = pol.get("train_comparison") or {}
    start_train = (pol.get("start") or {}).get("train")
    if h.get("heldout") or h.get("start") or start_train:
        temp = temperature_text((ev.get("sampling") or {}).get("temperature"))
        t = Table(title=f"held-out: trained vs starting policy (sampling temperature {temp})")
        for c in ("", "reward", "judge", "preference", "bad rate", "coverage", "errors/ep"):
            t.add_column(c)
        sampled = str(h.get("train_source") or "").startswith("trained policy sampled")
        for name, s in (("trained (held-out)", h.get("heldout")), ("start (held-out)", h.get("start")),
                        ("trained (train prompts)" if sampled else "trained (train prompts, training rollouts)",
                         h.get("train")), ("start (train prompts)", start_train)):
            if s:
                t.add_row(name, *[("n/a" if s.get(k) is None else f"{s[k]:.3f}") for k in
                                  ("reward", "judge", "preference", "bad_rate", "coverage", "errors_per_episode")])
        console.print(t)
    if tc.get("improvement") is not None:  # (computed, and shown nowhere, before)
        console.print(f"trained minus start on training prompts: reward {tc['improvement']:+.3f}, "
                      f"{verdicts.wins_text(tc)}")
