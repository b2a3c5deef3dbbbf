"""Training: the TRL tool class, reward functions, SFT warm start, GRPO presets.

Import-light (no torch here): names resolve lazily from their modules.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

# TRL 1.16 still sets and calls transformers' `gradient_checkpointing*` names, which transformers 5.24 renamed to
# `activation_checkpointing*`: three FutureWarnings with tracebacks per run that say nothing about the run
warnings.filterwarnings("ignore", message=r"`(is_)?gradient_checkpointing\w*` is deprecated", category=FutureWarning)

#: The first this many characters of each completion are kept in rollouts.jsonl (``grpo.Recorder.record``); eval
#: reads a transcript that long as cut short (``aquarelle.eval.run``). Here, not in grpo.py, so that reading a run
#: does not import the trainer's modules (~0.25 s).
TRAIN_COMPLETION_CHARS = 6000


def say(message: str) -> None:
    """One line on stderr during training: through ``tqdm.write``, which lifts the trainer's progress bar and draws
    it again below, so the line starts a line of its own (printed, it ran on after the bar: "...3.61s/it]interrupted
    during step 2")."""
    import sys

    from tqdm import tqdm

    tqdm.write(message, file=sys.stderr)
    sys.stderr.flush()


class Terminated(BaseException):
    """SIGTERM while training (``grpo._sigterm_as_interrupt``): handled as Ctrl-C is, but the CLI exits 143
    (128 + SIGTERM), as a scheduler or `timeout` reads a process it stopped, not Ctrl-C's 130. Not a
    KeyboardInterrupt, which typer turns into a bare exit 130; here, so the CLI can catch it without torch."""


def read_summary(run: str | Path) -> dict[str, Any]:
    """A run's summary.json (``grpo._fit`` writes it when training finishes) as a dict; {} when it is missing (a run
    cut short) or unreadable. Here so that ``train --resume`` (``grpo._finished``) and eval (``aquarelle.eval.run``)
    read it alike without eval importing the trainer's modules."""
    import json

    try:
        d = json.loads((Path(run) / "summary.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


__all__ = ["PaintingToolEnv", "ToolError", "make_tool_env", "tool_names"]

_WHERE = {"PaintingToolEnv": "tool_env", "ToolError": "tool_env", "make_tool_env": "tool_env", "tool_names": "tool_env"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
