"""Reading the sketch a model's completion answers with (sketch mode, and the code ``submit_sketch`` is given).

Why its own module: real policies wrap their answer in ways a gate must not score as the model's fault (a
```JavaScript fence, a skeleton before the finished sketch, a draft inside a reasoning model's <think>, a page
with the sketch in its <script>), and a rule per layout is easier to read, test and extend here than inside the
training data code.
"""

from __future__ import annotations

import re
from typing import Any

#: A fenced block: opened at a line's start (```js in prose is no fence) with any info string (```js,
#: ```JavaScript, ```jsx title=a.js), to the next fence or the end of a completion cut off inside it.
CODE_BLOCK = re.compile(r"^[ \t]*```[^\n`]*\n(.*?)(?:```|\Z)", re.S | re.M)
#: A reasoning model's <think> section, closed or cut off. (A section the template opened in the prompt is given
#: its <think> first: ``as_written``; a lone </think> in the text is prose, and the code before it stays.)
THINKING = re.compile(r"<think>.*?(?:</think>|\Z)", re.S)
DEFINES_SETUP = re.compile(r"\bfunction\s+setup\s*\(|\bsetup\s*=")
DEFINES_DRAW = re.compile(r"\bfunction\s+draw\s*\(|\bdraw\s*=")
#: A <script> element of an HTML page: its tag's attributes (bounded: an unclosed tag is read in linear time) and
#: its body.
SCRIPT = re.compile(r"<script\b([^>]{0,500})>(.*?)(?:</script\s*>|\Z)", re.S | re.I)
LOADS_FILE = re.compile(r"\bsrc\s*=", re.I)
#: Said beside the gate's reason when a completion ran out of tokens while reasoning.
UNFINISHED_THINKING = "the completion ended inside <think>, before any sketch"
#: How a rollout's record says that tool calls the model wrote never reached the environment (eval, which counts
#: them from the transcript when it has one, leaves these out: ``eval.metrics.policy_errors``).
NEVER_RAN = "tool calls never ran: "


def _script_of(code: str) -> str:
    """An HTML page's inline scripts, joined; any other code as it is."""
    if "<script" not in code.lower():
        return code
    bodies = [b.strip() for attrs, b in SCRIPT.findall(code) if b.strip() and not LOADS_FILE.search(attrs)]
    return "\n\n".join(bodies) if bodies else code


def extract_sketch(completion_text: str) -> str:
    """The code a completion answers with, never a draft inside the model's reasoning.

    Of its fenced blocks: the last that defines both ``setup`` and ``draw`` (a skeleton or a first try comes
    before the finished sketch); else all blocks joined when ``setup`` and ``draw`` stand in different blocks;
    else the last block that defines ``setup``; else the first block; with no fence, the whole text. An HTML
    page counts as its inline scripts."""
    text = THINKING.sub("", completion_text)
    blocks = [_script_of(m.group(1)).strip() for m in CODE_BLOCK.finditer(text)]
    if not blocks:
        return _script_of(text).strip()
    setups = [b for b in blocks if DEFINES_SETUP.search(b)]
    whole = [b for b in setups if DEFINES_DRAW.search(b)]
    if whole:
        return whole[-1]
    if setups and any(DEFINES_DRAW.search(b) for b in blocks):
        return "\n\n".join(blocks)
    return setups[-1] if setups else blocks[0]


def unfinished_thinking(completion_text: str, code: str | None = None) -> bool:
    """Whether the completion stopped inside a <think> section it opened, with no code before it (``code``: its
    ``extract_sketch``, when the caller has it already)."""
    at = completion_text.rfind("<think>")
    if at < 0 or "</think>" in completion_text[at:]:
        return False
    return not (extract_sketch(completion_text) if code is None else code)


def prompt_opens_thinking(tokenizer: Any) -> bool:
    """Whether the policy's chat template opens a <think> section in the generation prompt itself (Qwen3's thinking
    templates, R1 distills): its completions then start inside the reasoning, with no <think> of their own, and a
    completion cut off there would have its draft read as the answer."""
    try:
        text = tokenizer.apply_chat_template([{"role": "user", "content": "x"}], tokenize=False,
                                             add_generation_prompt=True)
    except Exception:  # noqa: BLE001 - no template, or one that wants other messages: it opens nothing we can see
        return False
    return isinstance(text, str) and text.rstrip().endswith("<think>")


def completion_text(completion: Any) -> str:
    """The text a completion answers with: itself, or a chat completion's assistant messages joined (TRL hands a
    reward function a list of messages when the dataset is conversational)."""
    if isinstance(completion, str):
        return completion
    return "\n".join(m["content"] for m in completion
                     if m.get("role") == "assistant" and isinstance(m.get("content"), str))


def as_written(completion_text: str, opens_thinking: bool) -> str:
    """The completion with the <think> its prompt opened, so it is read as the model wrote it."""
    return "<think>" + completion_text if opens_thinking and "<think>" not in completion_text else completion_text


def unrun_calls(completion: Any, budget: int | None = None) -> list[str]:
    """Why tool calls a tools or revise completion wrote never ran, one line per assistant turn that TRL's parser
    left as text: cut off inside a call (the token budget ran out mid-sketch), or a call it could not parse (TRL
    then runs none of the turn's calls). Without this a revise rollout cut off inside ``submit_sketch`` read only
    "Finished without a sketch ... nothing painted", with ``errors: []``."""
    turns = completion if isinstance(completion, list) else [{"role": "assistant", "content": completion}]
    out = []
    for m in turns:
        text = m.get("content") if isinstance(m, dict) and m.get("role") == "assistant" else None
        if not isinstance(text, str) or "<tool_call>" not in text:
            continue
        if text.rfind("</tool_call>") < text.rfind("<tool_call>"):
            out.append(NEVER_RAN + "the completion ended inside one"
                       + (f" (generation.max_completion_length {budget} tokens)" if budget else ""))
        else:
            n = text.count("<tool_call>")
            out.append(NEVER_RAN + f"{n} in one turn could not be parsed, so none of that turn's ran")
    return out
