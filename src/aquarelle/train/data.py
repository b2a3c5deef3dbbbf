"""Training data: painting prompts (the pool's training split) and demonstrations for the warm start.

Why here and not in the pool module: training needs the prompts as TRL dataset rows
(chat messages plus the columns ``reset(**row)`` reads) and the demonstrations as
chat transcripts in TRL's tool-call format, which only the trainer cares about.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aquarelle.brush import HF10, Program, get_space
from aquarelle.brush.action_space import ALWAYS

REPO_ROOT = Path(__file__).resolve().parents[3]
POOL_DIR = REPO_ROOT / "pool"
#: The split names a prompt file may use (case aside), one rule for training and eval: eval held out "validation"
#: and "held_out" prompts that training had trained on, and a misspelt split ("tran") was trained on unsaid.
HELDOUT_SPLITS = ("heldout", "held-out", "held_out", "test", "eval", "validation", "val")
TRAIN_SPLITS = ("train", "training")


class DataError(ValueError):
    """Prompts or demonstrations cannot be read (one line naming the file)."""


@dataclass
class PromptRow:
    id: str
    prompt: str
    split: str = "train"
    subject: str = ""


@dataclass
class Demo:
    """One demonstration painting: its prompt and either a program, a sketch source, or both."""

    id: str
    prompt: str
    tier: str
    program: Program | None = None
    sketch: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------ prompts


def split_of(value: Any, where: str) -> str:
    """"train" or "heldout" for a prompt's split (missing: train); DataError naming ``where`` for any other."""
    if value is None:
        return "train"
    v = str(value).strip().lower()
    if v in TRAIN_SPLITS:
        return "train"
    if v in HELDOUT_SPLITS:
        return "heldout"
    raise DataError(f"{where}: split {value!r} is neither training ({', '.join(TRAIN_SPLITS)}) nor held out "
                    f"({', '.join(HELDOUT_SPLITS)})")


def _prompt_row(it: Any, i: int | str, split: Any, pid: str, source: str) -> PromptRow:
    """One prompt of a file: a string, or an object with a non-empty "prompt" (or "text") string."""
    where = f"{source}: prompt {i}"
    if isinstance(it, str):
        text, subj = it, ""
    elif isinstance(it, dict):
        text = it.get("prompt", it.get("text"))
        if text is None:
            raise DataError(f"{where} has no 'prompt' text")
        if not isinstance(text, str):
            raise DataError(f"{where}: the prompt must be a string, got {type(text).__name__}")
        pid, subj = str(it.get("id", pid)), str(it.get("subject", ""))
        split = it.get("split", split)
    else:
        raise DataError(f"{where} must be a string or an object with a 'prompt', got {type(it).__name__}")
    if not text.strip():
        raise DataError(f"{where} is empty")
    return PromptRow(pid, text, split_of(split, where), subj)


def _prompt_rows(data: Any, source: str) -> list[PromptRow]:
    """Rows of a prompt file: a list (strings or objects), ``{"prompts": [...]}``, or ``{split: [...]}``. Every row
    is checked: ``[null, ...]`` and ``{"train": null}`` were tracebacks, and "", a row with no text ('None'), a
    string where a list goes (one prompt per character) and a list as a prompt ("['x']") were trained on."""
    if isinstance(data, dict) and "prompts" in data:
        data = data["prompts"]
    rows: list[PromptRow] = []
    if isinstance(data, dict):  # {"train": [...], "heldout": [...]}
        for split, items in data.items():
            if not isinstance(items, list):
                raise DataError(f"{source}: split {split!r} must hold a list of prompts, got {type(items).__name__}")
            for i, it in enumerate(items):
                rows.append(_prompt_row(it, f"{i} of {split!r}", split, f"{split}-{i}", source))
    elif isinstance(data, list):
        for i, it in enumerate(data):
            rows.append(_prompt_row(it, i, None, str(i), source))
    else:
        raise DataError(f"{source}: expected a list of prompts or a mapping of split -> prompts")
    return rows


def prompt_file(path: str | Path | None) -> Path:
    """The prompt file a run reads: the given one (relative to the working directory), else the repository's pool's,
    else (an installed wheel outside a checkout) the pool the package carries."""
    if path:
        return Path(path).resolve()
    if not POOL_DIR.is_dir():
        from aquarelle.bundled import bundled_pool

        installed = bundled_pool()
        if installed is not None:
            return (installed / "prompts.json").resolve()
    return (POOL_DIR / "prompts.json").resolve()


def _parse_prompt_file(p: Path) -> Any:
    """JSON, JSON lines (``.jsonl``) or YAML (``.yaml``/``.yml``), by suffix."""
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if p.suffix in (".yaml", ".yml"):
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise DataError(f"prompt file {p} is not valid YAML: {str(e).splitlines()[0]}") from None
    return json.loads(text)


def load_prompts(path: str | Path | None = None, split: str = "train") -> list[PromptRow]:
    """Prompts of one split ('train' = everything not held out; 'heldout'; 'all'); ``split`` of each row is
    "train" or "heldout". Eval reads the held-out prompts with this too."""
    p = prompt_file(path)
    if not p.is_file():
        rel = " (a relative path is read from the working directory)" if path and not Path(path).is_absolute() else ""
        raise DataError(f"prompt file {p} does not exist{rel} (the pool's prompts.json, or pass --config prompts: FILE)")
    try:
        rows = _prompt_rows(_parse_prompt_file(p), str(p))
    except json.JSONDecodeError as e:
        raise DataError(f"prompt file {p} is not valid JSON: {e.msg} at line {e.lineno}") from None
    except UnicodeDecodeError as e:  # a bare "'utf-8' codec can't decode..." did not say which file
        raise DataError(f"prompt file {p} is not UTF-8 text ({e})") from None
    from aquarelle.rewards.pool import prompt_id_clash

    clash = prompt_id_clash((r.id, r.prompt, r.split) for r in rows)
    if clash:
        raise DataError(f"prompt file {p}: {clash}")
    if split == "all":
        return rows
    out = [r for r in rows if r.split == ("heldout" if split == "heldout" else "train")]
    if not out:
        raise DataError(f"prompt file {p} has no {split!r} prompts")
    return out


def group_seed(base_seed: int, prompt_id: str) -> int:
    """A stable per-prompt seed: every completion of a GRPO group shares it (same references)."""
    import zlib

    return (base_seed * 1_000_003 + zlib.crc32(prompt_id.encode())) % (2**31)


def prompt_dataset(rows: list[PromptRow], *, mode: str, system: str, action_space: str, preset: str,
                   seed: int, max_steps: int, revisions: int) -> Any:
    """A datasets.Dataset whose columns are what TRL needs plus what ``reset(**row)`` reads."""
    from datasets import Dataset

    recs = [reset_row(r.prompt, r.id, r.split, mode=mode, system=system, action_space=action_space, preset=preset,
                      seed=group_seed(seed, r.id), max_steps=max_steps, revisions=revisions) for r in rows]
    return Dataset.from_list(recs)


def reset_row(prompt: str, prompt_id: str, split: str, *, mode: str, system: str, action_space: str, preset: str,
              seed: int, max_steps: int, revisions: int) -> dict:
    """One dataset row: the chat prompt TRL samples from and what ``reset(**row)`` reads (SFT demonstrations are
    replayed from the same rows, so they see the episode start training will)."""
    return {
        "prompt": [{"role": "system", "content": system}, {"role": "user", "content": task_text(prompt, mode)}],
        "painting_prompt": prompt,
        "subject": prompt,  # what PaintingToolEnv.reset paints
        "prompt_id": prompt_id,
        "split": split,
        "mode": mode,
        "seed": seed,
        "action_space": action_space,
        "preset": preset,
        "max_steps": max_steps,
        "revisions": revisions,
    }


def task_text(prompt: str, mode: str) -> str:
    """The user message. The environment's reset() may append its own task text after it."""
    if mode == "sketch":
        return f"Paint a watercolour: {prompt}\nWrite the whole p5.brush sketch."
    return f"Paint a watercolour: {prompt}\n"


# ------------------------------------------------------------------ demonstrations


def load_demos(source: str | Path | None = None, tiers: tuple[str, ...] = ("love", "okay")) -> list[Demo]:
    """Demonstrations from a directory of JSON files, or from the reference pool (default).

    A JSON demo is ``{"id", "prompt", "tier", "program": {...}}`` and/or ``"sketch": "..."``.
    """
    if source is None:
        return _pool_demos(tiers)
    if not Path(source).is_dir():  # a typo must not silently train on the pool instead
        raise DataError(f"--demos {source}: {'not a directory' if Path(source).exists() else 'no such directory'}")
    demos = [_demo_file(f) for f in sorted(Path(source).glob("*.json"))]
    kept = [d for d in demos if d.tier in tiers]
    if not kept:
        raise DataError(f"--demos {source} holds no demonstration of tier {', '.join(tiers)} "
                        f"({len(demos)} JSON files)")
    return kept


def _demo_file(f: Path) -> Demo:
    """One demonstration JSON file; DataError naming the file and what is wrong with it."""
    try:
        d = json.loads(f.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DataError(f"demonstration {f.name} is not valid JSON: {getattr(e, 'msg', e)}") from None
    if not isinstance(d, dict) or not isinstance(d.get("prompt"), str) or not d["prompt"].strip():
        raise DataError(f"demonstration {f.name} must be a JSON object with a \"prompt\" string")
    if not d.get("program") and not isinstance(d.get("sketch"), str):
        raise DataError(f"demonstration {f.name} has neither a \"program\" nor a \"sketch\"")
    try:
        prog = Program.from_json(d["program"]) if d.get("program") else None
    except Exception as e:  # noqa: BLE001 - any malformed program: the file's fault, one line
        raise DataError(f"demonstration {f.name}: bad program: {str(e).splitlines()[0] if str(e) else e!r}") from None
    return Demo(str(d.get("id", f.stem)), d["prompt"], str(d.get("tier", "love")), prog, d.get("sketch"))


def require_fitting(demos: list[Demo], mode: str, action_space: str) -> list[str]:
    """The ids of the demonstrations that do not fit the mode and action space though they were meant to (they fail
    in the sandbox, or call methods outside a space their pool entry says they keep to: left out, and said by the
    caller, where they were dropped unsaid); DataError when none fits. Checked before the model loads."""
    fits = program_of if mode == "tools" else sketch_of  # revise submits the sketch whole
    out = [d for d in demos if fits(d, action_space) is None]
    if len(out) == len(demos):
        raise DataError(f"no demonstration fits mode {mode!r} and action space {action_space!r}")
    # a pool painting rated outside hf10 is left out of an hf10 warm start by design: not worth a line each run
    return [d.id for d in out if not (action_space == "hf10" and d.meta.get("hf10") is False)]


def left_out_text(ids: list[str], of: int, action_space: str) -> str:
    return (f"{len(ids)} of {of} demonstrations left out (they fail in the sandbox or call methods outside "
            f"{action_space}): {', '.join(ids[:8])}{f' and {len(ids) - 8} more' if len(ids) > 8 else ''}")


def _pool_demos(tiers: tuple[str, ...]) -> list[Demo]:
    """The reference pool's paintings of the given tiers, with their sketch source (aquarelle.rewards.pool)."""
    try:
        from aquarelle.rewards.pool import Pool

        pool = Pool()
    except Exception as e:  # noqa: BLE001 - missing or malformed pool: one line
        raise DataError(f"the reference pool is not available: {str(e).splitlines()[0] if str(e) else e!r}") from None
    from aquarelle.rewards.pool import PoolRenderError

    demos = []
    for e in pool.entries:
        if e.tier not in tiers:
            continue
        try:
            source = pool.source(e)
        except PoolRenderError as err:  # a sketch that is missing or not UTF-8: one line naming it
            raise DataError(f"the reference pool is not available: {err}") from None
        demos.append(Demo(e.id, e.prompt or f"a watercolour of {e.subject}: {e.id.replace('_', ' ')}", e.tier, None,
                          source, meta={"hf10": e.hf10, "subject": e.subject}))
    return demos


def program_of(demo: Demo, action_space: str) -> Program | None:
    """The demo's program (run the sketch in the sandbox if needed); None if it does not fit the space."""
    prog = demo.program
    if prog is None and demo.sketch:
        from aquarelle.brush.sandbox import run_sketch

        res = run_sketch(demo.sketch, action_space=action_space)
        if not res.ok:
            return None
        prog = res.program
    if prog is None:
        return None
    space = get_space(action_space)
    return prog if all(c.method in space for c in prog.commands) else None


def sketch_of(demo: Demo, action_space: str) -> str | None:
    """The sketch source for sketch-mode SFT (the pool's own source, else exported from the program)."""
    if demo.sketch:
        if demo.program is None and program_of(demo, action_space) is None:
            return None
        return demo.sketch
    if demo.program is None:
        return None
    from aquarelle.brush.export import to_sketch

    return to_sketch(demo.program)


# ------------------------------------------------------------------ tool transcripts

#: Bump when transcripts change, so cached warm starts trained on older ones are not reused.
# 3: the task text after reset is no longer cut at env.observation_chars; 4: a tool result gives its warnings and
# the steps left before the painting's summary (cut at 120 characters, they were lost), calls as JS (true, no None);
# 5: a capped tool result ends at its last whole sentence; 6: the task text lists the tools the class offers (shape,
# not beginShape/vertex/endShape), steps left before warnings, a refused call says what it left, "Set ..." says
# "nothing painted yet" only when nothing is; 7: "1 step left.", a step whose calls change no pixel says so, tool
# parameters name their defaults (and angles their sense: no hf10 tool takes one), the sketch and revise system
# prompts say what scores 0
TRANSCRIPT_VERSION = 7
#: Calls that only affect strokes, and the calls that can switch a stroke on. In a space
#: without the latter (hf10) the former never change the painting, and a small policy that
#: copies them spends its few tool turns before it reaches a shape.
#: Tokens of chat-template markup one message or tool call costs beyond its own text (role header, end marker,
#: ``<tool_call>`` tags; ~12 with the qwen2_5 template): what the warm start adds when it sizes demonstrations
#: against a rollout's ``max_completion_length``.
MARKUP_TOKENS = 12
STROKE_ONLY = frozenset({"scaleBrushes", "noStroke"})
STROKE_ON = frozenset({"set", "stroke"})


def _group_calls(program: Program) -> list[list[tuple[str, list]]]:
    """Split a program into turns: state calls accumulate, each shape closes a turn (shape = one `shape` call)."""
    turns: list[list[tuple[str, list]]] = []
    cur: list[tuple[str, list]] = []
    shape_pts: list | None = None
    curvature: Any = None
    for c in program.commands:
        m, a = c.method, list(c.args)
        if m == "beginShape":
            shape_pts, curvature = [], (a[0] if a else 0)
            continue
        if m == "vertex" and shape_pts is not None:
            shape_pts.append([round(float(a[0]), 1), round(float(a[1]), 1)])
            continue
        if m == "endShape" and shape_pts is not None:
            cur.append(("shape", [shape_pts, curvature]))
            shape_pts = None
            turns.append(cur)
            cur = []
            continue
        cur.append((m, a))
        if m in ("circle", "rect", "polygon", "arc", "line", "spline", "flowLine"):
            turns.append(cur)
            cur = []
    if cur:
        turns.append(cur)
    return turns


def _kwargs_for(env: Any, name: str, args: list) -> dict[str, Any]:
    import inspect

    fn = getattr(env, name)
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if len(args) > len(params):
        raise DataError(f"demonstration call {name} has {len(args)} args but the tool takes {len(params)}")
    out = {}
    for p, v in zip(params, args):
        if v is None or (p.default is not inspect.Parameter.empty and v == p.default):
            continue  # defaults cost tokens and teach nothing
        out[p.name] = _short(v)
    return out


def _short(v: Any) -> Any:
    """Round numbers the way a painter would write them: every digit is a completion token."""
    if isinstance(v, bool) or not isinstance(v, (int, float, list)):
        return v
    if isinstance(v, list):
        return [_short(x) for x in v]
    if abs(v) >= 10:
        return int(round(v))
    r = round(float(v), 2)
    return int(r) if r == int(r) else r


def tool_schemas(env_cls: type) -> list[dict]:
    """The JSON schemas TRL derives from the environment class's public methods."""
    import inspect

    from transformers.utils import get_json_schema

    inst = env_cls()
    names = [n for n, _ in inspect.getmembers(env_cls, predicate=inspect.isfunction)
             if n not in ("reset", "get_reward") and not n.startswith("_")]
    return [get_json_schema(getattr(inst, n)) for n in names]


def tools_transcript(demo: Demo, program: Program, env_cls: type, *, system: str, row: dict,
                     budget_tokens: int | None = None, count: Any = None, turns: int | None = None) -> dict:
    """Replay a demonstration through the real tool environment, recording a TRL chat transcript.

    Each tool message is the environment's real answer, so the model learns what it will actually see. An
    assistant turn carries the calls that paint one shape, or with ``turns`` (the trainer's
    ``generation.max_tool_calling_iterations``) the painting is spread over that many turns: a rollout runs the
    calls of that many turns and no more, so a warm start taught one shape per turn painted at most that many
    shapes, and wrote the rest in a last turn whose calls never run.
    """
    env, messages = _open_transcript(env_cls, system, row)
    space_tools = _tool_names(env_cls)
    shapes: list[tuple[list[dict], list[str]]] = []  # per shape: its calls and the environment's answers
    used = 0.0
    for turn in _group_calls(program):
        if budget_tokens is not None and used > 0.6 * budget_tokens:
            break  # the rest would not fit the rollout budget: a shorter painting, then finish
        calls, results = [], []
        for name, args in turn:
            if name in ALWAYS or name not in space_tools:
                continue  # the environment paints the paper itself
            if name in STROKE_ONLY and not space_tools & STROKE_ON:
                continue  # no stroke can be switched on in this space: the call changes nothing on the paper
            kwargs = _kwargs_for(env, name, args)
            try:
                out = getattr(env, name)(**kwargs)
            except Exception as e:  # noqa: BLE001 - a tool error is what TRL shows the model
                out = {"error": str(e)}
            calls.append({"type": "function", "function": {"name": name, "arguments": kwargs}})
            results.append(str(out))
        if not calls:
            continue
        if getattr(env, "done", False) and shapes:
            break  # the step budget ran out: a shorter demonstration is still a valid one
        shapes.append((calls, results))
        text = "".join(json.dumps(c["function"]) for c in calls) + "".join(results)
        used += count(text) + MARKUP_TOKENS * len(calls) if count else len(text) / 2.2  # tokens
    for part in _spread(shapes, turns):
        calls = [c for shape_calls, _ in part for c in shape_calls]
        results = [r for _, shape_results in part for r in shape_results]
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        messages += [{"role": "tool", "name": c["function"]["name"], "content": r} for c, r in zip(calls, results)]
    return _close_transcript(env, messages, space_tools)


def _spread(shapes: list, turns: int | None) -> list[list]:
    """The shapes in order, one per turn, or in ``turns`` turns of as even a number of calls as they split into."""
    if turns is None or len(shapes) <= turns:
        return [[s] for s in shapes]
    sizes = [len(calls) for calls, _ in shapes]
    total, out, start = sum(sizes), [], 0
    for t in range(turns):
        goal = total * (t + 1) / turns  # where this turn should end, in calls from the start
        end, done = start, sum(sizes[:start])
        while end < len(shapes) - (turns - t - 1) and (end == start or done + sizes[end] / 2 <= goal):
            done += sizes[end]
            end += 1
        if t == turns - 1:
            end = len(shapes)
        out.append(shapes[start:end])
        start = end
    return out


def revise_transcript(sketch: str, env_cls: type, *, system: str, row: dict) -> dict:
    """A revise-mode demonstration: the sketch submitted whole through the real environment, its real critique,
    then ``finish``.

    Why not the tools transcripts: revise offers only ``submit_sketch`` and ``finish``, so a policy warm-started
    on brush calls answered every revise episode with ``fill(...)``, "unknown tool", reward 0 for the whole
    group and nothing for GRPO to learn from.
    """
    env, messages = _open_transcript(env_cls, system, row)
    space_tools = _tool_names(env_cls)
    if "submit_sketch" not in space_tools:
        raise DataError("revise demonstrations need an environment with the submit_sketch tool")
    try:
        out = env.submit_sketch(code=sketch)
    except Exception as e:  # noqa: BLE001 - a tool error is what TRL shows the model
        out = {"error": str(e)}
    messages.append({"role": "assistant", "content": "",
                     "tool_calls": [{"type": "function", "function": {"name": "submit_sketch",
                                                                      "arguments": {"code": sketch}}}]})
    messages.append({"role": "tool", "name": "submit_sketch", "content": str(out)})
    return _close_transcript(env, messages, space_tools)


def _tool_names(env_cls: type) -> set[str]:
    return {s["function"]["name"] if "function" in s else s["name"] for s in tool_schemas(env_cls)}


def _open_transcript(env_cls: type, system: str, row: dict) -> tuple[Any, list[dict]]:
    """A fresh environment reset as training resets it, and the opening messages: the user message is the
    row's prompt followed by the task text reset returns, as TRL joins them."""
    env = env_cls()
    task = env.reset(**row)
    user = row["prompt"][-1]["content"] + (task if isinstance(task, str) else "")
    return env, [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _close_transcript(env: Any, messages: list[dict], space_tools: set[str]) -> dict:
    """``finish`` (where the mode has it and the episode is still open), then a closing remark."""
    if "finish" in space_tools and not env.done:
        out = env.finish()
        messages.append({"role": "assistant", "content": "",
                         "tool_calls": [{"type": "function", "function": {"name": "finish", "arguments": {}}}]})
        messages.append({"role": "tool", "name": "finish", "content": str(out)})
    messages.append({"role": "assistant", "content": "Done."})
    return {"messages": messages}


def hf10_fits(program: Program) -> bool:
    return all(c.method in HF10 or (c.method in ALWAYS and c.method not in ("frame", "push", "pop")) for c in program.commands)
