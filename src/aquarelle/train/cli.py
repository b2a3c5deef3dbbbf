"""`aquarelle sft`, `aquarelle train`, `aquarelle paint` (typer only at import: torch loads inside commands)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, List, Optional

import typer

_USER_ERRORS = ("ConfigError", "DataError", "ModelError", "CommandError", "ValueError", "OSError", "BrowserError")


def _user_error(e: BaseException) -> bool:
    """Whether ``e`` is one the user can act on from one line: by class name along its MRO, so subclasses count
    (a JSONDecodeError is a ValueError, a FileExistsError an OSError) without importing torch-heavy modules here."""
    return any(k.__name__ in _USER_ERRORS for k in type(e).__mro__)


def _fail(e: BaseException) -> None:
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


def _threads() -> None:
    """One BLAS thread per process on small CPUs: two ran 5x slower on 2 cores (DESIGN.md)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def register(app: typer.Typer) -> None:
    @app.command("sft")
    def sft(
        out: str = typer.Option(..., "--out", help="directory for the warm-started model"),
        mode: Optional[str] = typer.Option(None, "--mode", help="tools (tool-call transcripts), sketch (sketch "
                                           "source) or revise (the sketch submitted with submit_sketch); default: "
                                           "the config's mode"),
        action_space: Optional[str] = typer.Option(None, "--action-space", help="hf10, full or a comma-separated "
                                                   "list (default: the config's env.action_space, hf10)"),
        model: Optional[str] = typer.Option(None, "--model", help="smollm2 (CPU default), a Hub id or a local path "
                                            "(default: the config's model.name, smollm2)"),
        steps: Optional[int] = typer.Option(None, "--steps", help="SFT steps (default from config: sft.steps)"),
        demos: Optional[str] = typer.Option(None, "--demos", help="a directory of demonstration JSON files "
                                                                  "(default: the pool's love/okay paintings)"),
        config: Optional[str] = typer.Option(None, "--config", help="config file (YAML/JSON)"),
    ) -> None:
        """Warm-start a policy on demonstrations with TRL's SFTTrainer."""
        _threads()
        _check_named(out=out, model=model)
        if mode not in (None, "tools", "sketch", "revise"):
            _fail(ValueError(f"--mode must be tools, sketch or revise, got {mode!r}"))
        try:
            from .sft import sft_command

            info = sft_command(mode, action_space, model, out, steps, demos, config)
        except Exception as e:  # noqa: BLE001
            if _user_error(e):
                _fail(e)
            raise
        typer.echo(json.dumps(info))

    @app.command("train")
    def train(
        out: str = typer.Option(..., "--out", help="the run directory"),
        preset: Optional[str] = typer.Option(None, "--preset", help="judge-led, hps-led or hps-only"),
        mode: Optional[str] = typer.Option(None, "--mode", help="tools (default), sketch or revise"),
        model: Optional[str] = typer.Option(None, "--model", help="smollm2 (CPU default), a Hub id or a local path"),
        max_steps: Optional[int] = typer.Option(None, "--max-steps", help="GRPO steps"),
        num_generations: Optional[int] = typer.Option(None, "--num-generations", help="G, completions per prompt"),
        lora: bool = typer.Option(False, "--lora", help="train a LoRA adapter"),
        env_url: Optional[List[str]] = typer.Option(None, "--env-url", help="env server URL (repeatable)"),
        config: Optional[str] = typer.Option(None, "--config", help="config file (YAML/JSON); flags override it"),
        resume: bool = typer.Option(False, "--resume", help="continue the run in --out from its last checkpoint"),
        action_space: Optional[str] = typer.Option(None, "--action-space", help="hf10 (default), full or a "
                                                   "comma-separated list"),
        max_completion_length: Optional[int] = typer.Option(None, "--max-completion-length", help="token budget"),
        temperature: Optional[float] = typer.Option(None, "--temperature", help="sampling temperature of the "
                                                    "rollouts (generation.temperature)"),
        demos: Optional[str] = typer.Option(None, "--demos", help="demonstrations for the warm start"),
        trackio: bool = typer.Option(False, "--trackio", help="also log to trackio (local)"),
    ) -> None:
        """Train a painter with TRL's GRPOTrainer; fills the run directory."""
        _threads()
        _check_named(out=out, model=model)
        try:
            from .config import config_from, load_config
            from .grpo import train as run_train

            overrides = {"mode": mode, "model.name": model, "reward.preset": preset, "optim.max_steps": max_steps,
                         "generation.num_generations": num_generations, "model.lora": True if lora else None,
                         "env.urls": list(env_url) if env_url else None, "env.action_space": action_space,
                         "generation.max_completion_length": max_completion_length,
                         "generation.temperature": temperature, "optim.trackio": True if trackio else None}
            if resume and config is None and os.path.isfile(os.path.join(out, "config.json")):
                cfg = config_from(_run_config(out), overrides)
                config = os.path.join(out, "config.json")
            else:
                cfg = load_config(config, overrides)
            if resume and os.path.isfile(os.path.join(out, "config.json")):
                _check_resume(out, cfg)
            summary = run_train(cfg, out, resume=resume, demos=demos, config_file=config)
        except Exception as e:  # noqa: BLE001
            if _user_error(e):
                _fail(e)
            raise
        from .procs import Procs

        procs = Procs.from_env()
        procs.close()
        if procs.main:  # a multi-process launch: one summary line, not one per process
            typer.echo(json.dumps(summary))

    @app.command("paint")
    def paint(
        model: str = typer.Argument(..., help="a run directory, checkpoint, Hub id, local path or smollm2"),
        prompt: str = typer.Argument(..., help="what to paint"),
        out_png: Optional[str] = typer.Option(None, "-o", "--out", help="write the painting as PNG"),
        mode: Optional[str] = typer.Option(None, "--mode", help="tools, sketch or revise (default: the --config file's "
                                           "mode, else the run's, else tools)"),
        export: Optional[str] = typer.Option(None, "--export", help="write a standalone p5.brush HTML page"),
        seed: int = typer.Option(0, "--seed", help="sampling seed"),
        config: Optional[str] = typer.Option(None, "--config", help="config file (scorers, env, generation; "
                                                                     "default: a run's own config)"),
    ) -> None:
        """Paint one prompt with a policy and keep the code."""
        _threads()
        if mode is not None and mode not in ("tools", "sketch", "revise"):
            _fail(ValueError(f"--mode must be tools, sketch or revise, got {mode!r}"))
        _check_named(model=model)
        if not prompt.strip():
            _fail(ValueError("the prompt is empty: say what to paint"))
        try:
            _check_outputs(out_png, export)
        except ValueError as e:
            _fail(e)
        try:
            from .config import config_from, load_config
            from .sample import export_html, paint as do_paint

            run_cfg = _run_config(model) if config is None and _is_run(model) else None
            cfg = config_from(run_cfg) if run_cfg is not None else load_config(config)
            if cfg.env.urls:  # every mode paints through them (sketch mode scores there); else minutes lost first
                from .preflight import check_env_urls

                check_env_urls(cfg.env.urls, cfg.reward.scorer_config(),
                               config_file=os.path.join(model, "config.json") if run_cfg is not None else config)
            rec = do_paint(model, prompt, mode, config=cfg, seed=seed, out_png=out_png)
            if out_png and rec.get("image") is None:
                typer.echo(f"note: no image written to {out_png}: " + ("; ".join(rec.get("errors") or [])
                                                                        or "the episode made no painting"), err=True)
            unexported = None
            if export:
                try:
                    export_html(rec, export)
                except ValueError as e:  # no program to export: the painting's record (its code) is still kept
                    unexported = f"--export: nothing written to {export}: {e}".replace("nothing to export: ", "")
        except Exception as e:  # noqa: BLE001
            if _user_error(e):
                _fail(e)
            raise
        rec.pop("png_b64", None)
        rec.pop("program", None)
        typer.echo(json.dumps(rec))
        if unexported:
            typer.echo(f"error: {unexported}", err=True)
            raise typer.Exit(1)


def _check_named(**values: Optional[str]) -> None:
    """An empty --out or model is a one-line error before anything loads: ``train --out ''`` started training into
    the current directory and ``paint '' PROMPT`` painted with the default policy, exit 0."""
    for name, value in values.items():
        if value is not None and not value.strip():
            flag = "MODEL" if name == "model" and "out" not in values else f"--{name}"
            _fail(ValueError(f"{flag} is empty: name {'a policy' if name == 'model' else 'a directory'}"))


def _check_outputs(out_png: Optional[str], export: Optional[str]) -> None:
    """paint's output paths (and the p5.brush bundle an export inlines), checked as ``render -o`` checks its
    own: before a policy loads and paints, which takes minutes on a CPU, not after."""
    from pathlib import Path

    from aquarelle.outputs import writable_folder

    for path, suffix, flag in ((out_png, ".png", "-o"), (export, ".html", "--export")):
        if path is None:
            continue
        if Path(path).suffix.lower() != suffix:
            raise ValueError(f"{flag} must end in {suffix}, got {path}")
        if Path(path).is_dir():
            raise ValueError(f"{flag} {path}: is a directory")
        # a missing folder is made, as `render -o` and `report -o` make theirs
        reason = writable_folder(Path(path).resolve().parent)
        if reason:
            raise ValueError(f"{flag} {path}: {reason}")
    if export:
        from aquarelle.render.browser import find_node_modules

        try:
            find_node_modules()
        except Exception as e:  # noqa: BLE001 - BrowserError: the bundle is missing, say so in one line
            raise ValueError(f"--export: {e}") from None


def _is_run(path: str) -> bool:
    """A training run directory (its config.json is the run's settings, which paint then uses like eval does)."""
    return os.path.isfile(os.path.join(path, "config.json")) and os.path.isfile(os.path.join(path, "rollouts.jsonl"))


#: What a resume may change: how far it trains, where its env servers run, where it logs, how often it saves.
RESUME_MAY_CHANGE = ("optim.max_steps", "env.urls", "optim.trackio", "optim.save_steps", "optim.save_total_limit",
                     "env.reconnect_s")


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _check_resume(run: str, cfg: Any) -> None:
    """--resume continues the run config.json describes: a flag (or --config) that would train it otherwise is one
    line. `--resume --mode tools --preset judge-led` on a sketch-mode hps-only run trained tools-mode steps under
    judge-led while config.json, eval and the report went on saying sketch and hps-only."""
    from .config import ConfigError, config_from

    own, new = _flat(config_from(_run_config(run)).model_dump()), _flat(cfg.model_dump())
    diff = [k for k in sorted(set(own) | set(new)) if own.get(k) != new.get(k) and not k.startswith(RESUME_MAY_CHANGE)]
    if diff:
        k = diff[0]
        more = f" (and {len(diff) - 1} more: {', '.join(diff[1:4])})" if len(diff) > 1 else ""
        raise ConfigError(f"--resume continues the run as its config.json says: {k} would be {new.get(k)!r}, the run "
                          f"trained with {own.get(k)!r}{more}; a resume may change only "
                          f"{', '.join(RESUME_MAY_CHANGE)} (another --out starts a new run)")


def _run_config(run: str) -> dict:
    """--resume: the run's own settings (config.json's "config" block); a damaged file is a one-line ConfigError."""
    from ..configfile import read_mapping
    from .config import ConfigError

    path = os.path.join(run, "config.json")
    data = read_mapping(path, "run config", ConfigError).get("config")
    if not isinstance(data, dict):
        raise ConfigError(f"run config {path} has no \"config\" object (not written by `aquarelle train`?)")
    return data


def _main() -> None:  # pragma: no cover - `python -m aquarelle.train.cli`
    app = typer.Typer()
    register(app)
    app()
    sys.exit(0)
