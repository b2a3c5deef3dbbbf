"""Reading a run directory (config.json, metrics.jsonl, rollouts.jsonl, images/).

Lenient on purpose: a run may be cut short or written by an older version, so
missing keys get neutral defaults and a broken line is skipped with a count,
never a traceback. Bad input (no such directory, no rollouts file) is a RunError
with one line.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from aquarelle.train import TRAIN_COMPLETION_CHARS  # where training cuts a completion; eval samples keep it whole
from aquarelle.train import read_summary

TERMS = ("gate", "length", "judge", "preference")

#: The published presets (CONTRACTS.md); used only when the run's config does not state its weights.
PRESET_WEIGHTS = {
    "judge-led": {"gate": 0.05, "length": 0.05, "judge": 0.60, "preference": 0.30},
    "hps-led": {"gate": 0.05, "length": 0.05, "judge": 0.30, "preference": 0.60},
    "hps-only": {"gate": 0.05, "length": 0.05, "judge": 0.0, "preference": 0.90},
}


class RunError(ValueError):
    """The run directory cannot be read; the message is one line."""


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if f == f and abs(f) != float("inf") else None


#: The largest reward a run can give: four terms of at most 1 under weights of at most 1e6 each
#: (``rewards.config.Weights``). A larger one is a damaged line (1e308 summed to infinity, a mean of two 8e307
#: overflowed and eval failed with a traceback): read as unscored, saying why.
MAX_REWARD = 4e6


_CALL_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)
_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]+)"')
_RESPONSE_RE = re.compile(r"<tool_response>(.*?)</tool_response>", re.S)
_ERROR_RE = re.compile(r"""^\s*\{\s*['"]error['"]\s*:\s*['"](.*)['"]\s*\}\s*$""", re.S)


def _shared(s: str, strings: dict[str, str] | None) -> str:
    """``s``, or the equal string read before it (``strings``: one load's strings by value). Why: each JSON line
    made its own copy of the prompt, the split, every method name and error; 8,000 rollouts held 8,000 of each."""
    return s if strings is None else strings.setdefault(s, s)


@dataclass(slots=True)
class TranscriptStats:
    """Tool use read from a tools-mode transcript: what the model tried, not only what the env accepted.

    Calls that never parse or fail on their arguments leave no trace in the env's
    program or errors; the transcript (``<tool_call>`` ... ``<tool_response>``) shows them.
    """

    attempts: int
    names: dict[str, int]
    responses: int
    failures: list[str]
    #: well-formed calls after the last tool response: the episode's turns or tokens ran out before they could run
    #: (TRL runs no calls past ``max_tool_calling_iterations`` or the completion budget); not the model's error
    unanswered: int = 0

    @property
    def malformed(self) -> int:
        """Tool calls that got no response for a reason of their own (unparsable JSON, cut off mid-call)."""
        return max(0, self.attempts - self.responses - self.unanswered)

    @classmethod
    def parse(cls, text: str, cut: bool = False, strings: dict[str, str] | None = None) -> "TranscriptStats":
        """``cut``: the text is the start of a longer transcript; the exchange cut off at its end is left out.
        ``strings``: names and failures equal to one read before are kept once (``_shared``)."""
        if cut:
            end = text.rfind("</tool_response>")
            text = text[:end + len("</tool_response>")] if end >= 0 else ""
        calls = _CALL_RE.findall(text)
        names: dict[str, int] = {}
        for c in calls:
            m = _NAME_RE.search(c)
            if m:
                name = _shared(m.group(1), strings)
                names[name] = names.get(name, 0) + 1
        responses = _RESPONSE_RE.findall(text)
        failures = []
        for r in responses:
            m = _ERROR_RE.match(r)
            if m:
                failures.append(_shared(m.group(1).strip()[:200], strings))
        # the calls after the last response: one that parses was written when no turn was left to run it (a trainer
        # drops a whole turn whose calls do not all parse, so then the turn's calls count as malformed)
        end = text.rfind("</tool_response>")
        tail = _CALL_RE.findall(text[end:] if end >= 0 else text)
        unanswered = len(tail) if tail and all(_is_call(c) for c in tail) else 0
        return cls(attempts=len(calls), names=names, responses=len(responses), failures=failures,
                   unanswered=unanswered)


def _is_call(body: str) -> bool:
    """A ``<tool_call>`` body a chat template's parser reads: a JSON object naming the tool."""
    try:
        obj = json.loads(body)
    except ValueError:
        return False
    return isinstance(obj, dict) and isinstance(obj.get("name"), str)


def code_key(code: str) -> bytes:
    """A fixed-size stand-in for a program, equal exactly when the programs are (a 128-bit hash)."""
    return hashlib.blake2b(code.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass(slots=True)
class Rollout:
    """One painting episode, as training (or eval sampling) wrote it.

    ``load_run`` keeps of its code only ``code_key`` (``code`` is None): the measures compare a training rollout's
    code with its group's and nothing reads it, and at a few KB a rollout it was the largest thing a report held.
    Eval samples (``load_samples``, a few hundred) keep it whole: their collapse check reads it.
    """

    step: int
    prompt: str
    prompt_id: str
    split: str
    mode: str
    group: int
    code: str | None  # None where the loader kept only code_key (``load_run``)
    image: str | None
    reward: float | None
    breakdown: dict[str, float | None]
    coverage: float | None
    n_calls: int | None
    errors: list[str]
    methods: dict[str, int]
    judge_position_bias: int | None = None
    judge_pairs: int | None = None
    policy: str | None = None  # eval samples only: "trained" | "start"
    transcript: "TranscriptStats | None" = None  # when the line keeps the model's completion (eval samples)
    extra: dict[str, Any] = field(default_factory=dict)
    code_key: bytes = b""  # ``code_key(code)``: what the duplicate-code measure compares

    def __post_init__(self) -> None:
        if not self.code_key and self.code is not None:  # built directly, not by from_dict: one key per program
            self.code_key = code_key(self.code)

    @property
    def group_key(self) -> tuple[int, int]:
        return (self.step, self.group)

    @classmethod
    def from_dict(cls, d: dict[str, Any], index: int = 0, *, keep_code: bool = True,
                  strings: dict[str, str] | None = None) -> "Rollout":
        """The rollout of one JSONL row; ``keep_code=False``: only its ``code_key``; ``strings``: the loader's
        strings by value, so that equal ones (prompts, method names, errors) are kept once (``_shared``)."""
        bd_raw = d.get("breakdown") or {}
        if not isinstance(bd_raw, dict):
            bd_raw = {}
        breakdown = {t: _num(bd_raw.get(t)) for t in TERMS}
        for k, v in bd_raw.items():
            if k not in breakdown:
                breakdown[_shared(str(k), strings)] = _num(v)
        errors = d.get("errors")
        if isinstance(errors, (int, float)) and not isinstance(errors, bool):
            errors_list = ["error"] * int(errors)
        elif isinstance(errors, list):
            errors_list = [_shared(str(e), strings) for e in errors]
        elif isinstance(errors, str) and errors:
            errors_list = [_shared(errors, strings)]
        else:
            errors_list = []
        methods = d.get("methods")
        counts: dict[str, int] = {}
        if isinstance(methods, dict):
            for k, v in methods.items():
                n = _num(v)
                counts[_shared(str(k), strings)] = int(n) if n is not None else 0
        elif isinstance(methods, list):
            for m in methods:
                name = _shared(str(m), strings)
                counts[name] = counts.get(name, 0) + 1
        step = _num(d.get("step"))
        group = _num(d.get("group"))
        n_calls = _num(d.get("n_calls"))
        jpb = _num(d.get("judge_position_bias", bd_raw.get("judge_position_bias")))
        jpairs = _num(d.get("judge_pairs"))
        prompt = str(d.get("prompt") or "")
        num = _num(d.get("reward"))
        absurd = num is not None and abs(num) > MAX_REWARD  # unscored, with the reason (``MAX_REWARD``)
        comp = d.get("completion")
        cut = not d.get("policy") and isinstance(comp, str) and len(comp) >= TRAIN_COMPLETION_CHARS
        code = d.get("code") if isinstance(d.get("code"), str) else json.dumps(d.get("code") or "")
        known = {"step", "prompt", "prompt_id", "split", "mode", "group", "code", "image", "reward", "breakdown",
                 "coverage", "n_calls", "errors", "methods", "judge_position_bias", "judge_pairs", "policy",
                 "completion"}
        return cls(
            step=int(step) if step is not None else 0,
            prompt=_shared(prompt, strings),
            prompt_id=_shared(str(d.get("prompt_id") or prompt), strings),
            split=_shared(str(d.get("split") or "train"), strings),
            mode=_shared(str(d.get("mode") or "tools"), strings),
            group=int(group) if group is not None else index,
            code=code if keep_code else None,
            code_key=code_key(code),
            image=str(d["image"]) if d.get("image") else None,
            reward=None if absurd else num,
            breakdown=breakdown,
            coverage=_num(d.get("coverage")),
            n_calls=int(n_calls) if n_calls is not None else None,
            errors=errors_list,
            methods=counts,
            judge_position_bias=int(jpb) if jpb is not None else None,
            judge_pairs=int(jpairs) if jpairs is not None else None,
            policy=_shared(str(d["policy"]), strings) if d.get("policy") else None,
            transcript=TranscriptStats.parse(comp, cut, strings) if isinstance(comp, str) else None,
            extra={_shared(k, strings): v for k, v in d.items() if k not in known}
            | ({"error": f"reward {d['reward']!r} out of range (at most {MAX_REWARD:g} in size)"} if absurd else {}),
        )


@dataclass
class Run:
    """A loaded run directory."""

    path: Path
    config: dict[str, Any]
    metrics: list[dict[str, Any]]
    rollouts: list[Rollout]
    skipped_lines: int = 0
    summary: dict[str, Any] = field(default_factory=dict)  # summary.json, written when training finished

    @property
    def trained_steps(self) -> int:
        """Optimizer steps the run trained: the most of summary.json's count, the steps its metrics lines and
        training rollouts name, and the largest of those step numbers.

        Why not the steps that have rollouts: with generation reuse (``steps_per_generation``, ``num_iterations``)
        the steps that train on buffered rollouts have none, so 4 optimizer steps left rollouts at steps 1 and 3
        and the run read as 2 steps; ``logging_steps`` above 1 leaves metrics lines at every Nth step and the last only.
        """
        steps = {int(n) for n in (_num(m.get("step")) for m in self.metrics) if n is not None}
        steps |= {r.step for r in self.rollouts if r.policy is None}
        done = _num(self.summary.get("steps"))
        return max(len(steps), max(steps, default=0), int(done) if done is not None else 0)

    @property
    def name(self) -> str:
        return self.path.name

    def setting(self, *keys: str) -> Any:
        """The first of the dotted keys found in config.json (top level, or the training config under "config")."""
        return setting(self.config, *keys)

    @property
    def preset(self) -> str | None:
        p = self.setting("preset", "reward.preset")
        return str(p) if p else None

    @property
    def mode(self) -> str | None:
        m = self.setting("mode")
        return str(m) if m else None

    @property
    def action_space(self) -> str | list[str]:
        return self.setting("action_space", "env.action_space") or "hf10"

    @property
    def weights(self) -> dict[str, float]:
        return weights_of(self.config)

    def image_path(self, r: Rollout) -> Path | None:
        if not r.image:
            return None
        p = Path(r.image)
        return p if p.is_absolute() else self.path / p

    @property
    def judge_references(self) -> int:
        """References each painting is judged against (each asked in both orders: one pair per reference)."""
        refs = self.setting("references", "reward.references", "reward.extra.references")
        if isinstance(refs, dict):
            n = sum(int(v) for v in refs.values() if isinstance(v, (int, float)))
            if n > 0:
                return n
        return 4  # 2 love + 2 okay


def setting(config: dict[str, Any], *keys: str) -> Any:
    """Look dotted keys up in a run config; training writes its settings under "config", tests may write them flat."""
    holders = [config]
    if isinstance(config.get("config"), dict):
        holders.append(config["config"])
    for key in keys:
        for h in holders:
            cur: Any = h
            for part in key.split("."):
                cur = cur.get(part) if isinstance(cur, dict) else None
                if cur is None:
                    break
            if cur is not None:
                return cur
    return None


def weights_of(config: dict[str, Any]) -> dict[str, float]:
    """The reward weights a run trained with: its preset (else judge-led) with the terms its config states
    overriding it, as training resolves them (docs/config.md: `{judge: 0.5}` keeps the preset's other three)."""
    preset = setting(config, "preset", "reward.preset")
    base = dict(PRESET_WEIGHTS["judge-led"])
    try:  # the rewards package is the source of truth once it exists
        from aquarelle.rewards import PRESETS  # type: ignore

        if preset in PRESETS:
            base = {t: float(getattr(PRESETS[preset], t)) for t in TERMS}
    except Exception:  # noqa: BLE001 - fall back to the published table below
        if isinstance(preset, str) and preset in PRESET_WEIGHTS:  # a hand-edited config may hold anything here
            base = dict(PRESET_WEIGHTS[preset])
    w = setting(config, "weights", "reward.weights")
    if isinstance(w, dict):
        base.update({t: float(w[t]) for t in TERMS if _num(w.get(t)) is not None})
    return base


def iter_jsonl(path: Path) -> Iterator[dict[str, Any] | None]:
    """The rows of a JSONL file one by one, None for each unreadable line (a run killed mid-write leaves one; a line
    that is not UTF-8 counts as one too). Line by line: a 2,000-step run's rollouts.jsonl (979 MB) was read whole,
    then held as rows beside the rollouts made of them (3.3 GB for a report). RunError when the path is there but
    cannot be read as a file."""
    if not path.exists():
        return
    if not path.is_file():
        raise RunError(f"{path} is not a file")
    try:
        f = path.open("rb")
    except OSError as e:
        raise RunError(f"cannot read {path}: {e.strerror or e}") from None
    with f:
        for bline in f:
            try:
                line = bline.decode("utf-8").strip()
            except UnicodeDecodeError:
                yield None
                continue
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                yield None
                continue
            yield obj if isinstance(obj, dict) else None


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Rows of a JSONL file and how many lines were unreadable (``iter_jsonl``)."""
    rows, bad = [], 0
    for obj in iter_jsonl(path):
        if obj is None:
            bad += 1
        else:
            rows.append(obj)
    return rows, bad


def load_run(path: str | Path) -> Run:
    """Load a run directory; RunError (one line) when it is not one."""
    p = Path(path)
    if not p.exists():
        raise RunError(f"run directory {p} does not exist")
    if not p.is_dir():
        raise RunError(f"{p} is not a directory (expected a run directory with rollouts.jsonl)")
    if not (p / "rollouts.jsonl").exists():
        raise RunError(f"{p} has no rollouts.jsonl: not a training run directory (or it has not started)")
    config: dict[str, Any] = {}
    if (p / "config.json").exists():
        try:
            config = json.loads((p / "config.json").read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise RunError(f"{p / 'config.json'} is not valid JSON: {e.msg} at line {e.lineno}") from None
        except (OSError, UnicodeDecodeError) as e:
            raise RunError(f"cannot read {p / 'config.json'}: {getattr(e, 'strerror', None) or e}") from None
        if not isinstance(config, dict):
            raise RunError(f"{p / 'config.json'} must hold a JSON object")
    metrics, bad_m = read_jsonl(p / "metrics.jsonl")
    rollouts: list[Rollout] = []
    bad_r = 0
    strings: dict[str, str] = {}
    for d in iter_jsonl(p / "rollouts.jsonl"):  # each line made a rollout as it is read (its completion dropped)
        if d is None:
            bad_r += 1
        else:  # its code as code_key only, its strings shared with the lines before (``Rollout``)
            rollouts.append(Rollout.from_dict(d, len(rollouts), keep_code=False, strings=strings))
    del strings
    if bad_r and not rollouts:  # damage, not a run that has just started
        raise RunError(f"{p / 'rollouts.jsonl'}: none of its {bad_r} lines is a readable rollout")
    return Run(path=p, config=config, metrics=metrics, rollouts=rollouts, skipped_lines=bad_m + bad_r,
               summary=read_summary(p))  # {} when missing or unreadable: it only adds a step count


def load_samples(path: Path) -> list[Rollout]:
    """Eval samples (rollout lines with a ``policy`` key) from a JSONL file; RunError when it is not a file."""
    if not Path(path).is_file():
        raise RunError(f"samples file {path} {'is not a file' if Path(path).exists() else 'does not exist'}")
    rows, _ = read_jsonl(Path(path))
    # a line repeated word for word is one sample written twice (a file appended to again): counted once, or ten
    # copies of one painting weighed ten times in the held-out reward
    seen: set[str] = set()
    kept = []
    for d in rows:
        key = json.dumps(d, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            kept.append(d)
    return [Rollout.from_dict(d, i) for i, d in enumerate(kept)]
