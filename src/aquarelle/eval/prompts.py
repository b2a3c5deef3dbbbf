"""Which prompts to evaluate on: the run's training prompts and the pool's held-out split.

Training prompts come from the run itself (its rollouts), so an eval never needs
the pool for them. Held-out prompts come from the pool's prompt set, which
training never sees; the rewards part owns its format, so several shapes are
accepted (a ``load_prompts()`` in ``aquarelle.rewards.pool``, or a
``pool/prompts.{json,jsonl,yaml}`` file of ``{id, prompt, split}`` rows).
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
    s = str(s or "train").lower().replace("-", "").replace("_", "")
    return "heldout" if s in ("heldout", "test", "eval", "validation", "val") else "train"


def _rows_to_prompts(rows: Iterable[Any]) -> list[EvalPrompt]:
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, str):
            out.append(EvalPrompt(f"prompt-{i}", r, "train"))
            continue
        if not isinstance(r, dict):
            r = getattr(r, "__dict__", None) or (r.model_dump() if hasattr(r, "model_dump") else {})
        text = r.get("prompt") or r.get("text")
        if not text:
            continue
        out.append(EvalPrompt(str(r.get("id") or r.get("prompt_id") or f"prompt-{i}"), str(text),
                              _norm_split(r.get("split"))))
    from aquarelle.rewards.pool import prompt_id_clash

    clash = prompt_id_clash((p.id, p.prompt, p.split) for p in out)
    if clash:
        raise PromptError(clash)
    return out


def _from_file(path: Path) -> list[EvalPrompt]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    elif path.suffix in (".yaml", ".yml"):
        import yaml

        rows = yaml.safe_load(text)
    else:
        rows = json.loads(text)
    if isinstance(rows, dict):  # {"train": [...], "heldout": [...]} or {"prompts": [...]}
        if "prompts" in rows:
            rows = rows["prompts"]
        else:
            flat = []
            for split, items in rows.items():
                for j, it in enumerate(items or []):
                    it = {"prompt": it} if isinstance(it, str) else dict(it)
                    it.setdefault("split", split)
                    it.setdefault("id", f"{split}-{j}")
                    flat.append(it)
            rows = flat
    return _rows_to_prompts(rows or [])


def pool_prompts(root: Path | None = None, prompt_file: str | Path | None = None) -> list[EvalPrompt]:
    """The prompt set with its fixed split (the run's own prompt file, else the pool's); empty when none is found."""
    if prompt_file:
        path = Path(prompt_file)
        if path.is_file():
            try:
                return _from_file(path)
            except (OSError, ValueError) as e:
                raise PromptError(f"cannot read the prompt set {path}: {e}") from None
    if root is None:
        try:
            from aquarelle.rewards.pool import Pool  # type: ignore

            got = _rows_to_prompts(p.model_dump() for p in Pool().prompts("all"))
            if got:
                return got
        except Exception:  # noqa: BLE001 - no pool module or no pool.json: fall back to the prompt file alone
            pass
    roots = [root] if root else [Path.cwd() / "pool", Path(__file__).resolve().parents[3] / "pool"]
    for r in roots:
        for name in ("prompts.json", "prompts.jsonl", "prompts.yaml", "prompts.yml"):
            if (r / name).exists():
                try:
                    return _from_file(r / name)
                except (OSError, ValueError) as e:
                    raise PromptError(f"cannot read the prompt set {r / name}: {e}") from None
    return []


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
            train = [p for p in pool_prompts(pool_root, run.setting("prompts")) if p.split == "train"]
        if not train:
            raise PromptError(f"run {run.name} has no training prompts in its rollouts")
        out += train
    if which in ("heldout", "all"):
        held = [p for p in pool_prompts(pool_root, run.setting("prompts")) if p.split == "heldout"]
        cfg = run.config.get("heldout_prompts")
        if not held and isinstance(cfg, list):
            held = [EvalPrompt(p.id, p.prompt, "heldout") for p in _rows_to_prompts(cfg)]
        if not held:
            raise PromptError("no held-out prompts found: the pool's prompt set (pool/prompts.*) is missing "
                              "or has no held-out split")
        trained_on = {p.prompt for p in run_prompts(run)}
        out += [p for p in held if p.prompt not in trained_on]
    return out
