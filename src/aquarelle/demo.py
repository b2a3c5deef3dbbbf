"""`aquarelle demo`: the whole pipeline on embedded defaults, as a user would run it.

Warm start + a few GRPO steps (judge-led, tools mode, the CPU default policy and the
local scorers), evaluation on held-out prompts against the untrained starting
policy, then the HTML report. Each stage runs as its own `aquarelle` subprocess:
the same commands a user types, and each stage's model memory is returned to the
machine before the next one loads another copy.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import typer

#: The demo's sizes (the README states them; keep the two in step).
DEMO_STEPS = 3
DEMO_GENERATIONS = 2
DEMO_EVAL_SAMPLES = 2


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
    steps: int = typer.Option(DEMO_STEPS, "--steps", min=1, help="GRPO steps"),
    generations: int = typer.Option(DEMO_GENERATIONS, "--num-generations", min=2, help="G, completions per prompt"),
    samples: int = typer.Option(DEMO_EVAL_SAMPLES, "--samples", min=1, help="eval paintings per policy"),
    fresh: bool = typer.Option(True, "--fresh/--resume", help="start the run directory afresh"),
) -> None:
    """Train a painter on embedded defaults, evaluate it on held-out prompts and write the report."""
    t0 = time.monotonic()
    if fresh and out.exists():
        import shutil

        shutil.rmtree(out)
    train_args = ["train", "--preset", "judge-led", "--mode", "tools", "--max-steps", str(steps),
                  "--num-generations", str(generations), "--out", str(out)]
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
