"""Paint with a policy outside training: the same prompts, tools and scoring as a GRPO rollout.

Evaluation calls ``paint`` to compare a trained policy with its untrained start; the
returned dict has the keys of a rollouts.jsonl line so both go through one report.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .completion import prompt_opens_thinking, unrun_calls
from .config import TrainConfig, load_config
from .data import group_seed, reset_row, task_text
from .envglue import EnvTimer, Outcome, SketchScorer, env_class, finish_episode, public_tools
from .model import SYSTEMS, Policy, load_policy


def _policy(policy: Policy | str) -> Policy:
    return policy if isinstance(policy, Policy) else load_policy(policy)


def default_mode(policy: Policy | str) -> str:
    """A run or checkpoint remembers its mode; anything else paints with tools."""
    path = policy.path if isinstance(policy, Policy) else policy
    if path:
        for cand in (Path(path) / "aquarelle.json", Path(path) / "checkpoint" / "aquarelle.json"):
            if cand.is_file():
                return json.loads(cand.read_text()).get("mode", "tools")
    return "tools"


def _generate(policy: Policy, messages: list[dict], tools: list | None, max_new_tokens: int, temperature: float,
              seed: int, top_p: float = 1.0) -> tuple[str, list[int], list[int]]:
    """Sample one assistant turn; returns (text, new token ids, prompt token ids)."""
    import torch

    tok = policy.tokenizer
    text = tok.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
    ids = tok(text, return_tensors="pt", add_special_tokens=False)
    torch.manual_seed(seed)
    model = policy.model
    with torch.no_grad():
        out = model.generate(**ids.to(model.device), max_new_tokens=max_new_tokens, do_sample=temperature > 0,
                             temperature=temperature if temperature > 0 else None, top_p=top_p,
                             pad_token_id=tok.pad_token_id, eos_token_id=stop_ids(policy))
    new = out[0, ids["input_ids"].shape[1]:].tolist()
    return tok.decode(new, skip_special_tokens=False), new, ids["input_ids"][0].tolist()


def stop_ids(policy: Policy) -> list[int]:
    """The tokens a turn ends at, as GRPO's generation has them: the tokenizer's eos and every eos of the model's
    generation config (Llama 3's <|eom_id|> and <|eot_id|>), so evaluation samples end where training's did."""
    tok_eos = policy.tokenizer.eos_token_id
    cfg = getattr(policy.model, "generation_config", None)
    ids = getattr(cfg, "eos_token_id", None)
    ids = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    return ids if tok_eos is None or tok_eos in ids else [tok_eos, *ids]


def _parse(policy: Policy, ids: list[int], prefix: list[int], tools: list | None) -> dict:
    """TRL's own parser (the one GRPO uses), so paint sees tool calls exactly as training did."""
    from trl.chat_template_utils import add_response_schema, parse_response

    tok = policy.tokenizer
    if getattr(tok, "response_template", None) is None and getattr(tok, "response_schema", None) is None:
        add_response_schema(tok)
    while ids and ids[-1] == tok.pad_token_id and tok.pad_token_id != tok.eos_token_id:
        ids = ids[:-1]
    return parse_response(tok, ids, prefix=prefix, tools=tools)


def paint(policy: Policy | str, prompt: str, mode: str | None = None, *, config: TrainConfig | dict | None = None,
          seed: int = 0, temperature: float = 0.7, max_new_tokens: int | None = None, out_png: str | None = None,
          prompt_id: str = "", split: str = "", step: int = 0) -> dict:
    """Paint one picture; returns ``{step, prompt, prompt_id, split, mode, group, code, image, reward, breakdown,
    coverage, n_calls, errors, methods}`` plus ``png_b64``, ``program`` and ``completion``."""
    cfg = TrainConfig.model_validate(config) if isinstance(config, dict) else (config or load_config())
    pol = _policy(policy)
    # the mode named: here, else in the config given (its file said ``mode:``), else the run's own, else tools
    mode = mode or (cfg.mode if "mode" in cfg.model_fields_set else default_mode(pol))
    if mode not in ("tools", "sketch", "revise"):
        raise ValueError(f"mode must be tools, sketch or revise, got {mode!r}")
    budget = max_new_tokens or cfg.generation.max_completion_length
    gseed = group_seed(cfg.optim.seed + seed, prompt_id or prompt)
    timer = EnvTimer()
    messages = [{"role": "system", "content": SYSTEMS[mode]}, {"role": "user", "content": task_text(prompt, mode)}]
    t0 = time.perf_counter()
    if mode == "sketch":
        text, new, _ = _generate(pol, messages, None, budget, temperature, seed, cfg.generation.top_p)
        completion = text
        # as TRL hands a completion to the reward function: without its special tokens (eos, <|eot_id|>, ...)
        code, outcome = SketchScorer(cfg, timer).score_completion(
            pol.tokenizer.decode(new, skip_special_tokens=True), prompt=prompt, seed=gseed,
            preset=cfg.reward.preset, weights=cfg.reward.weights, opens_thinking=prompt_opens_thinking(pol.tokenizer))
    else:
        outcome, code, completion = _paint_with_tools(pol, messages, mode, cfg, prompt, gseed, budget, temperature,
                                                      seed)
    rec = _record(outcome, code, prompt, prompt_id, split, mode, step)
    rec["seed"] = gseed  # the episode's seed: `aquarelle score --seed` scores its sketch again
    rec.update(completion=completion, seconds=round(time.perf_counter() - t0, 2))
    if out_png and outcome.png_b64:
        import base64

        Path(out_png).write_bytes(base64.b64decode(outcome.png_b64))
        rec["image"] = str(out_png)
    return rec


def _paint_with_tools(pol: Policy, messages: list[dict], mode: str, cfg: TrainConfig, prompt: str, gseed: int,
                      budget: int, temperature: float, seed: int) -> tuple[Outcome, str, str]:
    from transformers.utils import get_json_schema

    cls = env_class(mode, cfg.env.action_space, cfg)
    env = cls()
    task = env.reset(**reset_row(prompt, "", "", mode=mode, system=SYSTEMS[mode], action_space=cfg.env.action_space,
                                 preset=cfg.reward.preset, seed=gseed, max_steps=cfg.env.max_steps,
                                 revisions=cfg.env.revisions))
    if isinstance(task, str):
        messages = messages[:-1] + [{**messages[-1], "content": messages[-1]["content"] + task}]
    names = public_tools(cls)
    tools = [get_json_schema(getattr(env, n)) for n in names]
    used = 0
    transcript = []
    for turn in range(cfg.generation.max_tool_calling_iterations + 1):
        left = budget - used
        if left <= 8:
            break
        text, new_ids, prefix = _generate(pol, messages, tools, left, temperature, seed + turn, cfg.generation.top_p)
        used += len(new_ids)
        transcript.append(text)
        msg = _parse(pol, new_ids, prefix, tools)
        calls = msg.get("tool_calls") or []
        messages.append({"role": "assistant", "content": msg.get("content") or "", "tool_calls": calls} if calls
                        else {"role": "assistant", "content": msg.get("content") or ""})
        if not calls or turn == cfg.generation.max_tool_calling_iterations:
            break  # TRL never runs the calls of the turn after its last round of tools
        for c in calls:
            fn = c.get("function", c)
            name, args = fn.get("name"), fn.get("arguments") or {}
            if name not in names:
                result = {"error": f"unknown tool {name!r}"}
            else:
                try:
                    result = getattr(env, name)(**args) if isinstance(args, dict) else {"error": "arguments must be an object"}
                except Exception as e:  # noqa: BLE001 - exactly what TRL shows the model
                    result = {"error": str(e)}
            messages.append({"role": "tool", "name": str(name), "content": str(result)})
            transcript.append(f"<tool_response>{result}</tool_response>")
            used += len(pol.tokenizer(str(result), add_special_tokens=False)["input_ids"])
    outcome = finish_episode(env)
    outcome.errors += unrun_calls(messages, budget)
    code = json.dumps(outcome.program) if outcome.program else (outcome.source or "")
    if mode == "revise":
        code = outcome.source or code
    return outcome, code, "\n".join(transcript)


def _record(outcome: Outcome, code: str, prompt: str, prompt_id: str, split: str, mode: str, step: int) -> dict:
    methods: dict[str, int] = {}
    for c in (outcome.program or {}).get("commands", []):
        methods[c["method"]] = methods.get(c["method"], 0) + 1
    return {"step": step, "prompt": prompt, "prompt_id": prompt_id, "split": split, "mode": mode, "group": 0,
            "code": code, "image": None, "reward": outcome.reward, "breakdown": outcome.breakdown,
            "coverage": outcome.coverage, "n_calls": outcome.n_calls or sum(methods.values()),
            "errors": outcome.errors + ([outcome.error] if outcome.error else []), "methods": methods,
            "png_b64": outcome.png_b64, "program": outcome.program, "feedback": outcome.feedback,
            "judge_position_bias": outcome.judge_position_bias, "judge_pairs": outcome.judge_pairs}


def export_html(rec: dict, path: str) -> None:
    """Write the painting as a standalone p5.brush page (brush.export.to_html)."""
    from aquarelle.brush import Program
    from aquarelle.brush.export import to_html

    if not rec.get("program"):
        raise ValueError("nothing to export: the painting has no program (" + "; ".join(rec.get("errors") or []) + ")")
    Path(path).write_text(to_html(Program.from_json(rec["program"])))
