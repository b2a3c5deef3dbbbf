"""`aquarelle demo`: the whole pipeline on embedded defaults, as a user would run it.

Warm start + a few GRPO steps (judge-led, tools mode, the CPU default policy and the
local scorers), evaluation on held-out prompts against the untrained starting
policy, then the HTML report. Each stage runs as its own `aquarelle` subprocess:
the same commands a user types, and each stage's model memory is returned to the
machine before the next one loads another copy.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import typer

#: The demo's sizes (the README states them; keep the two in step).
DEMO_STEPS = 3
DEMO_GENERATIONS = 2
DEMO_EVAL_SAMPLES = 2

#: Written into the run directory the demo makes: only a directory holding it is the demo's own to delete.
DEMO_MARKER = ".aquarelle-demo"
#: How older demos' `train` stage started its argv (config.json), before the marker existed.
_LEGACY_TRAIN_ARGS = ["train", "--preset", "judge-led", "--mode", "tools", "--max-steps"]


def _made_by_demo(out: Path) -> bool:
    """Whether ``out`` is a run directory an earlier ``aquarelle demo`` wrote (its marker, or its train argv)."""
    if (out / DEMO_MARKER).is_file():
        return True
    try:
        argv = json.loads((out / "config.json").read_text(encoding="utf-8")).get("argv") or []
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(argv, list) and argv[1:1 + len(_LEGACY_TRAIN_ARGS)] == _LEGACY_TRAIN_ARGS


def _clear_out(out: Path) -> None:
    """--fresh: remove the previous demo's run, but never a directory (or file) the demo did not make.

    Why: --out is a path the user typed; deleting whatever it names (a real run, the
    working directory) would lose their work.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        _refuse(f"--out {out} is not a directory; pick another --out")
    if not out.exists() or not any(out.iterdir()):
        return
    if not _made_by_demo(out):
        _refuse(f"--out {out} already holds files `aquarelle demo` did not make; remove them yourself "
                "or pick another --out")
    import shutil

    shutil.rmtree(out)


def _refuse(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)
    raise typer.Exit(2)


def _stage(name: str, args: list[str]) -> None:
    cmd = [sys.executable, "-m", "aquarelle.cli", *args]
    print(f"[demo] {name}: aquarelle {' '.join(args)}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    rc = subprocess.call(cmd)
    dt = time.monotonic() - t0
    if rc != 0:
        print(f"[demo] {name} failed (exit {rc}) after {dt:.0f} s", file=sys.stderr)
        raise typer.Exit(rc)
    print(f"[demo] {name} done in {dt:.0f} s", file=sys.stderr, flush=True)


def demo(
    out: Path = typer.Option(Path("runs/demo"), "--out", help="run directory for the demo"),
    steps: Optional[int] = typer.Option(None, "--steps", min=1, help=f"GRPO steps (default {DEMO_STEPS}, or the "
                                        "--config file's optim.max_steps)"),
    generations: Optional[int] = typer.Option(None, "--num-generations", min=2, help=f"G, completions per prompt "
                                              f"(default {DEMO_GENERATIONS}, or the --config file's)"),
    samples: int = typer.Option(DEMO_EVAL_SAMPLES, "--samples", min=1, help="eval paintings per policy"),
    fresh: bool = typer.Option(True, "--fresh/--resume", help="start afresh (removes only a previous demo run)"),
    config: Optional[Path] = typer.Option(None, "--config", help="a training config (YAML/JSON, docs/config.md): "
                                          "the demo's stages on its model, mode, preset and services instead of the "
                                          "embedded defaults"),
) -> None:
    """Train a painter on embedded defaults (or a --config file), evaluate it on held-out prompts, write the report."""
    t0 = time.monotonic()
    if config is not None and not config.is_file():  # before --fresh removes a previous demo
        _refuse(f"--config {config}: no such file")
    if fresh:
        _clear_out(out)
    elif out.exists() and not out.is_dir():
        _refuse(f"--out {out} is not a directory; pick another --out")
    out.mkdir(parents=True, exist_ok=True)
    (out / DEMO_MARKER).touch()
    if config is None:  # the embedded defaults: the CPU default policy, judge-led, tools mode
        train_args = ["train", "--preset", "judge-led", "--mode", "tools", "--max-steps", str(steps or DEMO_STEPS),
                      "--num-generations", str(generations or DEMO_GENERATIONS)]
    else:  # the file decides; the demo's sizes only where asked for on the command line
        train_args = ["train", "--config", str(config)]
        train_args += ["--max-steps", str(steps)] if steps else []
        train_args += ["--num-generations", str(generations)] if generations else []
    train_args += ["--out", str(out)]
    if not fresh and (out / "config.json").exists():
        train_args.append("--resume")
    _stage("train", train_args)
    _stage("eval", ["eval", str(out), "--prompts", "heldout", "--samples", str(samples)])
    report = out / "report.html"
    _stage("report", ["report", str(out), "-o", str(report)])
    print(f"[demo] finished in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    print(f"report: {report.resolve()}")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
