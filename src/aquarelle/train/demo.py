"""The training part of `make demo`: the CPU default warm-started, then a few judge-led GRPO steps in tools mode.

The sizes are fixed here (and stated in the README) so the demo fits its time budget
on two cores; `aquarelle train` with the same flags reproduces it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: What the demo trains with (the README quotes these numbers).
DEMO_SIZES = {
    "model": "smollm2",
    "mode": "tools",
    "preset": "judge-led",
    "sft_steps": 8,
    "grpo_steps": 2,
    "num_generations": 2,
    "max_completion_length": 640,
}


def demo_command(out: str | Path) -> str:
    """The equivalent command line."""
    s = DEMO_SIZES
    return (f"aquarelle train --preset {s['preset']} --mode {s['mode']} --max-steps {s['grpo_steps']} "
            f"--num-generations {s['num_generations']} --max-completion-length {s['max_completion_length']} "
            f"--out {out}")


def train_for_demo(out: str | Path, *, resume: bool = False, log: Any = None) -> dict:
    """Warm start (cached) + GRPO into the run directory ``out``; returns the run summary."""
    from .config import load_config
    from .grpo import train

    s = DEMO_SIZES
    cfg = load_config(None, {"model.name": s["model"], "mode": s["mode"], "reward.preset": s["preset"],
                             "sft.steps": s["sft_steps"], "optim.max_steps": s["grpo_steps"],
                             "generation.num_generations": s["num_generations"],
                             "generation.max_completion_length": s["max_completion_length"]})
    return train(cfg, out, resume=resume, log=log)
