"""SFT warm start with TRL's SFTTrainer: teach a policy the tool-call (or sketch) format from demonstrations.

Why: the CPU default (SmolLM2-135M) never emits a tool call on its own, and GRPO
cannot reward what is never sampled. A short warm start on the pool's love/okay
paintings that fit the action space gives it the format; GRPO then does the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..brush.sandbox import PROGRAM_VERSION
from .config import ConfigError, SFTSection
from .data import (MARKUP_TOKENS, TRANSCRIPT_VERSION, DataError, left_out_text, load_demos, program_of, require_fitting,
                   reset_row, revise_transcript, sketch_of, task_text, tool_schemas, tools_transcript)
from .model import SYSTEMS, Policy, cache_dir, load_policy, load_tokenizer, missing_part


def build_examples(demos: list, *, mode: str, action_space: str, env_cls: type | None = None,
                   max_steps: int = 64, budget_tokens: int | None = None, tokenizer: Any = None,
                   turns: int | None = None) -> list[dict]:
    """Conversational SFT examples ({"messages", "tools"?}) from demonstrations that fit the action space and, with
    a tokenizer and ``budget_tokens``, one rollout: a tools transcript is cut to fit, a whole sketch left out, and
    with ``turns`` (``generation.max_tool_calling_iterations``) a tools transcript takes that many turns."""
    system = SYSTEMS[mode]
    count = (lambda t: len(tokenizer(t, add_special_tokens=False)["input_ids"])) if tokenizer is not None else None
    if mode in ("tools", "revise") and env_cls is None:
        raise DataError(f"{mode}-mode demonstrations need the tool environment class")
    schemas = json.dumps(tool_schemas(env_cls)) if mode != "sketch" else None
    out, sizes = [], []
    for d in demos:
        if mode == "tools":
            prog = program_of(d, action_space)
            if prog is None or any(c.method in ("frame", "push", "pop") for c in prog.commands):
                continue  # (a sketch's own axes and p5's state stack: tool calls replayed here cannot say them)
            ex = tools_transcript(d, prog, env_cls, system=system, row=_row(d, mode, system, action_space, max_steps),
                                  budget_tokens=budget_tokens, count=count, turns=turns)  # cut to fit as it replays
        else:
            src = sketch_of(d, action_space)
            if src is None:
                continue
            if mode == "revise":
                ex = revise_transcript(src.strip(), env_cls, system=system,
                                       row=_row(d, mode, system, action_space, max_steps))
            else:
                ex = {"messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": task_text(d.prompt, "sketch")},
                                   {"role": "assistant", "content": "```js\n" + src.strip() + "\n```"}]}
            # a whole sketch cannot be cut: one longer than a rollout's budget would teach code that GRPO's
            # completions end half way through (16 of the 17 default demonstrations in revise mode at 640, 12 as sketches)
            sizes.append(_completion_tokens(ex, count))
            if budget_tokens is not None and count is not None and sizes[-1] > budget_tokens:
                continue
        if schemas is not None:
            ex["tools"] = schemas
        out.append(ex)
    if not out and sizes:
        raise DataError(f"no {mode}-mode demonstration fits generation.max_completion_length={budget_tokens} tokens "
                        f"(the shortest needs {min(sizes)}); raise it")
    if not out:
        raise DataError(f"no demonstration fits mode {mode!r} and action space {action_space!r}")
    if len(out) < len(sizes):
        print(f"warm start: {len(out)} of {len(sizes)} {mode} demonstrations fit generation.max_completion_length="
              f"{budget_tokens} tokens", file=sys.stderr)
    return out


def _row(d: Any, mode: str, system: str, action_space: str, max_steps: int) -> dict:
    """The dataset row training would reset the environment with for this demonstration's prompt."""
    return reset_row(d.prompt, d.id, "train", mode=mode, system=system, action_space=action_space,
                     preset="judge-led", seed=0, max_steps=max_steps, revisions=0)


def _completion_tokens(example: dict, count) -> int:
    """Tokens the rollout spends on a whole-sketch demonstration: every assistant turn and tool result after the
    prompt (tool results count against max_completion_length too), plus ``MARKUP_TOKENS`` per message."""
    if count is None:
        return 0
    total = 0
    for m in example["messages"][2:]:
        if m["role"] == "assistant" and not m.get("tool_calls") and m is example["messages"][-1] and len(
                example["messages"]) > 3:
            continue  # the closing remark after finish is not trained on (``to_text_examples``)
        text = m.get("content") or ""
        text += "".join(json.dumps(c["function"]) for c in m.get("tool_calls") or [])
        total += count(text) + MARKUP_TOKENS
    return total


def to_text_examples(examples: list[dict], tokenizer) -> list[dict]:
    """Render each assistant turn as a text prompt/completion pair with the policy's own chat template.

    Why text: a datasets column of tool calls unifies every call's arguments into one struct
    (fill gets ``"x": null``...), which teaches the model to emit nulls. Rendering here keeps
    each call exactly as GRPO will show it, and the completion-only loss trains just the
    assistant's tokens (tool results and the prompt are masked).
    """
    out = []
    for ex in examples:
        msgs = ex["messages"]
        tools = json.loads(ex["tools"]) if isinstance(ex.get("tools"), str) else ex.get("tools")
        for k, m in enumerate(msgs):
            if m["role"] != "assistant" or (k == len(msgs) - 1 and not m.get("tool_calls") and k > 2):
                continue  # the closing remark after finish costs a whole sequence and teaches nothing
            names = [c["function"]["name"] for c in m.get("tool_calls") or []]
            if names == ["finish"] and any(x["role"] == "assistant" and x is not m for x in msgs):
                continue  # measured: with finish turns half the data, 8 steps taught "call finish first";
                # an unfinished painting is scored anyway when the rollout ends
            prefix = tokenizer.apply_chat_template(msgs[:k], tools=tools, tokenize=False, add_generation_prompt=True)
            full = tokenizer.apply_chat_template(msgs[: k + 1], tools=tools, tokenize=False)
            if not full.startswith(prefix):
                raise DataError("the chat template is not prefix-preserving; cannot build SFT turns")
            completion = full[len(prefix):].rstrip("\n")
            out.append({"prompt": prefix, "completion": completion})
    return out


def fitting_texts(texts: list[dict], tokenizer: Any, max_length: int) -> list[dict]:
    """The SFT turns whose prompt is shorter than ``sft.max_length`` tokens (the others are left out); a one-line
    ConfigError naming the key when none is."""
    lengths = [len(tokenizer(t["prompt"], add_special_tokens=False)["input_ids"]) for t in texts]
    fits = [t for t, n in zip(texts, lengths) if n < max_length]
    if not fits:
        raise ConfigError(f"config key sft.max_length: every demonstration's prompt is longer than {max_length} "
                          f"tokens (the shortest is {min(lengths, default=0)}); raise it")
    return fits


def demo_examples(model: str, demos: list, *, mode: str, action_space: str, env_cls: type | None,
                  budget_tokens: int | None, cfg: SFTSection, turns: int | None = None) -> list[dict]:
    """The warm start's examples, built and checked against ``sft.max_length`` with the policy's tokenizer alone.

    Why before the model loads: that takes minutes on a CPU, the tokenizer seconds, and a ``max_length`` no
    demonstration fits used to be refused only once the model had loaded.
    """
    tok = load_tokenizer(model)
    examples = build_examples(demos, mode=mode, action_space=action_space, env_cls=env_cls,
                              budget_tokens=budget_tokens, tokenizer=tok, turns=turns)
    fitting_texts(to_text_examples(examples, tok), tok, cfg.max_length)
    return examples


def run_sft(policy: Policy, examples: list[dict], out: str | Path, cfg: SFTSection | None = None, *,
            seed: int = 0, progress: bool = True, mode: str = "tools") -> dict:
    """Train on the examples with SFTTrainer, save model + tokenizer to ``out``; returns measured numbers."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    cfg = cfg or SFTSection()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fits = fitting_texts(to_text_examples(examples, policy.tokenizer), policy.tokenizer, cfg.max_length)
    ds = Dataset.from_list(fits)
    args = SFTConfig(
        output_dir=str(out / "_trainer"), max_steps=cfg.steps, learning_rate=cfg.learning_rate,
        per_device_train_batch_size=cfg.batch_size, max_length=cfg.max_length, completion_only_loss=True,
        use_cpu=not _has_cuda(), bf16=False, fp16=False, logging_steps=1, save_strategy="no", report_to=[],
        seed=seed, lr_scheduler_type="constant", warmup_steps=0, disable_tqdm=not progress, dataloader_num_workers=0,
        packing=False,
    )
    from .model import freeze_below

    freeze_below(policy.model, cfg.train_layers)
    t0 = time.perf_counter()
    trainer = SFTTrainer(model=policy.model, args=args, train_dataset=ds, processing_class=policy.tokenizer)
    # transformers prints each logged step's {'loss': ...} on stdout: there, a warm start's 40 lines came before
    # GRPO's, whose log lines and summary are what `train`'s stdout carries (docs/config.md); so they go to stderr
    with contextlib.redirect_stdout(sys.stderr):
        result = trainer.train()
    secs = time.perf_counter() - t0
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    model = trainer.model
    model.save_pretrained(out)
    # the training template (with {% generation %} markers) must not leak into the saved tokenizer
    policy.tokenizer.save_pretrained(out)
    info = {"examples": len(examples), "steps": cfg.steps, "seconds": round(secs, 1),
            "first_loss": losses[0] if losses else None, "last_loss": losses[-1] if losses else None,
            "train_loss": result.training_loss, "can_call_tools": mode != "sketch", "mode": mode,
            "source": policy.name}
    (out / "aquarelle.json").write_text(json.dumps(info, indent=1))
    import shutil

    shutil.rmtree(out / "_trainer", ignore_errors=True)
    return info


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def rollout_budget(cfg: Any) -> dict[str, int]:
    """What one rollout may spend (a TrainConfig's completion tokens and tool-calling turns): a warm start's
    transcripts are cut to it and its cache entry is keyed by it, so every caller passes this same pair."""
    return {"budget_tokens": cfg.generation.max_completion_length,
            "turns": cfg.generation.max_tool_calling_iterations}


def demos_signature(demos_source: str | None, tiers: Any) -> str:
    """What the warm start learns from, as text for its cache key: each demonstration's id, tier, prompt and code.
    The key named the SFT settings but not the demonstrations, so a run over another pool (``AQUARELLE_POOL``), other
    ``sft.tiers`` or ``--demos`` started GRPO from the cached warm start of the repository's 17 paintings. Demos that
    cannot be read give their error here; ``ensure_warm_start`` then raises it."""
    try:
        demos = load_demos(demos_source, tiers=tuple(tiers))
    except DataError as e:
        return f"unreadable: {e}"
    return json.dumps([[d.id, d.tier, d.prompt, d.sketch, d.program.to_json() if d.program is not None else None]
                       for d in demos], sort_keys=True, default=str)


def warm_start_dir(model: str, mode: str, action_space: str, cfg: SFTSection, budget_tokens: int | None,
                   env_cls: type | None = None, turns: int | None = None, demos_source: str | None = None) -> Path:
    """Cache location of a warm start: one per (model, mode, space, SFT settings, token budget, demonstrations) and,
    in tools mode, per tool set, tool text and turns (what the transcripts it learns from show)."""
    safe = model.replace("/", "__").replace(os.sep, "__")
    out = cache_dir() / "warm" / (f"{safe}-{mode}-{action_space.replace(',', '+')}-s{cfg.steps}-b{cfg.batch_size}"
                                  f"-lr{cfg.learning_rate:g}-l{cfg.train_layers}-t{budget_tokens}")
    import hashlib

    # the sequence cap leaves out the demonstrations it does not fit, and they are whatever pool/--demos/tiers give
    learns = f"-max{cfg.max_length}-" + demos_signature(demos_source, cfg.tiers)
    if env_cls is None:  # (sketch mode) what it learns from: the system prompt, the pool's sketches
        sig = SYSTEMS.get(mode, "") + f"programs-v{PROGRAM_VERSION}" + learns
        return out.with_name(out.name + "-" + hashlib.sha1(sig.encode()).hexdigest()[:8])
    sig = (json.dumps(tool_schemas(env_cls), sort_keys=True)
           # where the env runs (and how long a dropped server is retried) changes no text it shows: env
           # containers reuse the in-process warm start
           + json.dumps({k: v for k, v in getattr(env_cls, "_config", {}).items()
                         if k not in ("env_urls", "reconnect_s")}, sort_keys=True, default=str)
           + f"transcripts-v{TRANSCRIPT_VERSION}-programs-v{PROGRAM_VERSION}"  # the pool's sketches' programs
           + (f"-turns{turns}" if turns is not None and mode == "tools" else "")
           + SYSTEMS.get(mode, "")  # every transcript opens with it
           + learns)
    return out.with_name(out.name + "-" + hashlib.sha1(sig.encode()).hexdigest()[:8])


def ensure_warm_start(model: str, *, mode: str, action_space: str, cfg: SFTSection, env_cls: type | None,
                      demos_source: str | None = None, seed: int = 0, budget_tokens: int | None = None,
                      turns: int | None = None, log=print) -> Path:
    """Return a cached warm-started checkpoint for the model, training it first if it is missing."""
    out = warm_start_dir(model, mode, action_space, cfg, budget_tokens, env_cls, turns, demos_source)
    why = missing_part(out) if out.exists() else None
    if out.exists() and why is None:
        log(f"warm start: using cached {out}")
        return out
    if why is not None:  # trained again below and swapped in whole (sft_into), under the launch's lock if it has one
        log(f"warm start: cached {out} is incomplete ({why}); training it again")
    demos = load_demos(demos_source, tiers=tuple(cfg.tiers))
    skipped = require_fitting(demos, mode, action_space)
    if skipped:
        log("warm start: " + left_out_text(skipped, len(demos), action_space))
    examples = demo_examples(model, demos, mode=mode, action_space=action_space, env_cls=env_cls,
                             budget_tokens=budget_tokens, cfg=cfg, turns=turns)
    policy = load_policy(model)
    log(f"warm start: {len(examples)} demonstrations, {cfg.steps} SFT steps -> {out}")
    info = sft_into(policy, examples, out, cfg, seed=seed, mode=mode)
    log(f"warm start: {info['seconds']} s, loss {info['first_loss']:.3f} -> {info['last_loss']:.3f}")
    return out


def cached_warm_start(model: str, *, mode: str, action_space: str, cfg: SFTSection, env_cls: type | None,
                      budget_tokens: int | None = None, turns: int | None = None,
                      demos_source: str | None = None) -> Path | None:
    """The warm start ensure_warm_start would return without training, or None when it would train one."""
    out = warm_start_dir(model, mode, action_space, cfg, budget_tokens, env_cls, turns, demos_source)
    return out if out.exists() and missing_part(out) is None else None


def warm_start_lock(model: str, *, mode: str, action_space: str, cfg: SFTSection, env_cls: type | None,
                    budget_tokens: int | None = None, turns: int | None = None, demos_source: str | None = None) -> Any:
    """The lock of one warm start's cache entry (``DIR.lock`` beside it, a ``filelock.FileLock``: an flock the OS
    drops if its holder dies): the processes of a multi-process launch take it in turn, so the first trains the
    warm start and the rest find it cached."""
    from filelock import FileLock

    out = warm_start_dir(model, mode, action_space, cfg, budget_tokens, env_cls, turns, demos_source)
    out.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(out.with_name(out.name + ".lock")))


def sft_command(mode: str | None, action_space: str | None, model: str | None, out: str, steps: int | None,
                demos: str | None, config: str | None) -> dict:
    """`aquarelle sft`: warm-start a policy into OUT and report what it did.

    A flag left out takes the config file's value (its mode, ``env.action_space`` and ``model.name``), as
    docs/config.md promises for every command that reads ``--config``; the weights train in float32 whatever
    ``model.dtype`` says (half-precision weights lose the optimizer's small steps). Everything that
    can be wrong with the input is checked before the model loads; the model is trained into a sibling
    directory and moved to OUT only when it is complete, so a failed run leaves OUT as it was.
    """
    from aquarelle.brush import get_space

    from .config import load_config
    from .envglue import env_class

    cfg = load_config(config, {"sft.steps": steps, "model.name": model, "env.action_space": action_space})
    mode = mode or cfg.mode
    model, action_space = cfg.model.name, cfg.env.action_space
    dest = Path(out).resolve()  # a name to put the sibling .tmp next to, even for --out .
    check_sft_out(dest)
    get_space(action_space)
    env_cls = env_class(mode, action_space, cfg) if mode != "sketch" else None
    demo_list = load_demos(demos, tiers=tuple(cfg.sft.tiers))
    skipped = require_fitting(demo_list, mode, action_space)
    if skipped:
        print("sft: " + left_out_text(skipped, len(demo_list), action_space), file=sys.stderr)
    examples = demo_examples(model, demo_list, mode=mode, action_space=action_space, env_cls=env_cls, cfg=cfg.sft,
                             **rollout_budget(cfg))
    policy = load_policy(model, dtype="float32")  # trained in float32: half-precision weights lose the steps
    print(f"sft: {len(examples)} demonstration{'' if len(examples) == 1 else 's'} ({mode}, {action_space}), "
          f"{cfg.sft.steps} steps", file=sys.stderr)
    return sft_into(policy, examples, dest, cfg.sft, seed=cfg.optim.seed, mode=mode)


def sft_into(policy: Policy, examples: list[dict], dest: Path, cfg: SFTSection, *, seed: int, mode: str) -> dict:
    """``run_sft`` into a sibling ``DEST.tmp``, moved to ``dest`` only when whole: a failed or interrupted warm
    start leaves ``dest`` (an earlier warm start, or nothing) as it was, never half a model."""
    import shutil

    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        info = run_sft(policy, examples, tmp, cfg, seed=seed, mode=mode)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _replace_dir(tmp, dest)
    return info


def check_sft_out(dest: Path) -> None:
    """--out is new, empty, or an earlier warm start (replaced); never a file, a run or someone's other files."""
    if dest.exists() and not dest.is_dir():
        raise DataError(f"--out {dest} is not a directory")
    if not dest.is_dir() or not any(dest.iterdir()):
        return
    if (dest / "rollouts.jsonl").exists() or (dest / "metrics.jsonl").exists():
        raise DataError(f"--out {dest} is a training run directory; warm-start into another --out")
    if not (dest / "aquarelle.json").is_file():
        raise DataError(f"--out {dest} already holds files that are not a warm start; pick another --out")


def _replace_dir(src: Path, dest: Path) -> None:
    """Move the finished model to ``dest``, replacing an earlier warm start only now that the new one is whole."""
    import shutil

    if dest.exists():
        old = dest.with_name(dest.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        dest.rename(old)
        src.rename(dest)
        shutil.rmtree(old, ignore_errors=True)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        src.rename(dest)
