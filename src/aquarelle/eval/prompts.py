"""Which prompts to evaluate on: the run's training prompts and its prompt set's held-out split.

Training prompts come from the run itself (its rollouts), so an eval never needs
the prompt file for them. Held-out prompts come from the prompt file the run was
split from (read by training's own ``load_prompts``), which training never trains on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .run import Run


class PromptError(ValueError):
    """No prompts for the requested split; one line."""


@dataclass(frozen=True)
class EvalPrompt:
    id: str
    prompt: str
    split: str  # "train" | "heldout"


def _norm_split(s: Any) -> str:
    """A rollout's recorded split as "train" or "heldout" (training records its rows' own, already one of them)."""
    from aquarelle.train.data import HELDOUT_SPLITS

    return "heldout" if str(s or "train").strip().lower() in HELDOUT_SPLITS else "train"


def _rows_to_prompts(rows: Iterable[Any]) -> list[EvalPrompt]:
    """A config's inline ``heldout_prompts`` list (strings or ``{id, prompt}`` rows)."""
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, str):
            out.append(EvalPrompt(f"prompt-{i}", r, "train"))
        elif isinstance(r, dict) and isinstance(r.get("prompt") or r.get("text"), str):
            out.append(EvalPrompt(str(r.get("id") or f"prompt-{i}"), r.get("prompt") or r.get("text"),
                                  _norm_split(r.get("split"))))
    return out


def run_prompt_file(run: Run) -> Path:
    """The prompt file the run was split from: the path training recorded (``prompt_file``), else its ``prompts``
    setting, else the repository's ``pool/prompts.json`` (outside a checkout, the installed wheel's), the rule
    training follows (``train.data.prompt_file``).
    Eval read its held-out prompts from ``AQUARELLE_POOL``'s prompts.json while training read the repository's."""
    from aquarelle.train.data import prompt_file

    recorded = run.config.get("prompt_file")
    return Path(recorded) if isinstance(recorded, str) and recorded else prompt_file(run.setting("prompts"))


def pool_prompts(root: Path | None = None, prompt_file: str | Path | None = None) -> list[EvalPrompt]:
    """The prompt set with its fixed split, read as training reads it (``train.data.load_prompts``): ``prompt_file``,
    else ``root``'s prompts.json, else the repository's. PromptError naming the file when it is missing or bad: a
    missing one fell through to another prompt set without a word, so a held-out number meant other prompts."""
    from aquarelle.train.data import DataError, load_prompts

    path = prompt_file if prompt_file else (Path(root) / "prompts.json" if root else None)
    try:
        rows = load_prompts(path, "all")
    except DataError as e:
        raise PromptError(f"cannot read the prompt set: {e}") from None
    return [EvalPrompt(r.id, r.prompt, r.split) for r in rows]


def run_prompts(run: Run) -> list[EvalPrompt]:
    """The training prompts the run saw, in first-seen order."""
    seen: dict[str, EvalPrompt] = {}
    for r in run.rollouts:
        if r.prompt_id not in seen and r.prompt:
            seen[r.prompt_id] = EvalPrompt(r.prompt_id, r.prompt, _norm_split(r.split))
    return list(seen.values())


def select(run: Run, which: str, pool_root: Path | None = None) -> list[EvalPrompt]:
    """Prompts for ``--prompts heldout|train|all``; PromptError when a requested split has none."""
    if which not in ("heldout", "train", "all"):
        raise PromptError(f"--prompts must be heldout, train or all, not {which!r}")
    out: list[EvalPrompt] = []
    if which in ("train", "all"):
        train = [p for p in run_prompts(run) if p.split == "train"]
        if not train:
            train = [p for p in pool_prompts(pool_root, None if pool_root else run_prompt_file(run)) if p.split == "train"]
        if not train:
            raise PromptError(f"run {run.name} has no training prompts in its rollouts")
        out += train
    if which in ("heldout", "all"):
        held = [p for p in pool_prompts(pool_root, None if pool_root else run_prompt_file(run)) if p.split == "heldout"]
        cfg = run.config.get("heldout_prompts")
        if not held and isinstance(cfg, list):
            held = [EvalPrompt(p.id, p.prompt, "heldout") for p in _rows_to_prompts(cfg)]
        if not held:
            raise PromptError(f"no held-out prompts found: the run's prompt set ({run_prompt_file(run)}) has no "
                              "held-out split")
        trained_on = {p.prompt for p in run_prompts(run)}
        out += [p for p in held if p.prompt not in trained_on]
    return out
