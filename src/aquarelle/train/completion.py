"""Reading the sketch a model's completion answers with (sketch mode, and the code ``submit_sketch`` is given).

Why its own module: real policies wrap their answer in ways a gate must not score as the model's fault (a
```JavaScript fence, a skeleton before the finished sketch, a draft inside a reasoning model's <think>, a page
with the sketch in its <script>), and a rule per layout is easier to read, test and extend here than inside the
training data code.
"""

from __future__ import annotations

import re
from typing import Any

#: A fenced block: any info string on the opening line (```js, ```JavaScript, ```jsx title=a.js), to the next
#: fence or the end of a completion cut off inside it.
CODE_BLOCK = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)
#: A reasoning model's <think> section, closed or cut off; a lone </think> when the template opened it in the prompt.
THINKING = re.compile(r"<think>.*?(?:</think>|\Z)|\A.*</think>", re.S)
DEFINES_SETUP = re.compile(r"\bfunction\s+setup\s*\(|\bsetup\s*=")
DEFINES_DRAW = re.compile(r"\bfunction\s+draw\s*\(|\bdraw\s*=")
#: A <script> element of an HTML page: its tag's attributes (bounded: an unclosed tag is read in linear time) and
#: its body.
SCRIPT = re.compile(r"<script\b([^>]{0,500})>(.*?)(?:</script\s*>|\Z)", re.S | re.I)
LOADS_FILE = re.compile(r"\bsrc\s*=", re.I)
#: Said beside the gate's reason when a completion ran out of tokens while reasoning.
UNFINISHED_THINKING = "the completion ended inside <think>, before any sketch"


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


def unfinished_thinking(completion_text: str) -> bool:
    """Whether the completion stopped inside a <think> section it opened, with no code before it."""
    at = completion_text.rfind("<think>")
    return at >= 0 and "</think>" not in completion_text[at:] and not extract_sketch(completion_text)


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


def as_written(completion_text: str, opens_thinking: bool) -> str:
    """The completion with the <think> its prompt opened, so it is read as the model wrote it."""
    return "<think>" + completion_text if opens_thinking and "<think>" not in completion_text else completion_text
