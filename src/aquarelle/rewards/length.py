"""The length term: rewards a sketch for being substantial, not for padding.

Sketch mode follows the published ramp over estimated tokens (characters / 4):
0 below 150, linear up to 1 at 3,000, flat to 6,000, 0 above 6,000. The characters
are the code's, not its padding: comments are left out and a run of whitespace
counts once (the published count took them all, so a 12,000-character comment
earned the whole term for a one-circle sketch). Nor is it code the painting never
runs: given the sketch's program, the count is at most ``PROGRAM_CAP`` times what that
program takes written out as a bare sketch (``aquarelle export --format js``), so
unused strings, arrays and functions earn nothing (hand-written sketches take at most
1.2 times their export: loops and helpers make the source shorter, not longer).

Tools mode has no source text, so it uses the same ramp over the number of brush
calls, converted with what one call costs in a sketch: a published-skeleton sketch
spends about 60 tokens on boilerplate and about 7 tokens per ``brush.*(...)`` call
(``brush.vertex(312, 148);`` is 24 characters), so tokens ~= 60 + 7 x calls. That
gives 0 up to 12 calls, 1 from 420 to 848 calls, 0 from 849 calls. The calls are
those a painting reads (``counted_calls``): 420 ``noStroke()`` earned the whole term.
"""

from __future__ import annotations

import re

from .gate import strip_code

TOKENS_LOW, TOKENS_FULL, TOKENS_MAX = 150, 3000, 6000
CHARS_PER_TOKEN = 4
SKELETON_TOKENS, TOKENS_PER_CALL = 60, 7
#: A sketch counts at most this many times its program's exported tokens. The 45 pool, bench, parity and
#: example sketches take 0.05-1.19 times theirs (2026-12-07), so twice leaves every one of them whole.
PROGRAM_CAP = 2.0
#: The fewest characters a recorded call other than ``frame`` is exported as (``pop();``): a lower bound on the
#: export's length that spares writing it out for a program whose calls alone allow the source.
MIN_CALL_CHARS = 6


_SPACE_RE = re.compile(r"\s+")


def estimated_tokens(source: str) -> float:
    """Characters / 4 of the code without its comments, each run of whitespace one character."""
    code = strip_code(source, keep_strings=True, drop_comments=True)[0]
    return len(_SPACE_RE.sub(" ", code)) / CHARS_PER_TOKEN


def ramp(tokens: float) -> float:
    """The published piecewise ramp over (estimated) tokens."""
    if tokens < TOKENS_LOW or tokens > TOKENS_MAX:
        return 0.0
    if tokens >= TOKENS_FULL:
        return 1.0
    return (tokens - TOKENS_LOW) / (TOKENS_FULL - TOKENS_LOW)


def calls_to_tokens(n_calls: int) -> float:
    return SKELETON_TOKENS + TOKENS_PER_CALL * n_calls


def written_calls(program) -> int:
    """The calls an export writes a line of at least ``MIN_CALL_CHARS`` for: those it exports (``recorded``)
    but ``frame``, which may write none."""
    return sum(1 for c in program.recorded().commands if c.method != "frame")


def sketch_tokens(source: str, program=None) -> float:
    """The source's tokens, capped by what its program takes exported (``PROGRAM_CAP``). Only ever lowers the
    term: above ``TOKENS_MAX`` the count is left as it is (an overlong sketch stays 0)."""
    tokens = estimated_tokens(source)
    if program is None or not TOKENS_LOW <= tokens <= TOKENS_MAX:
        return tokens
    from ..brush.export import to_sketch

    # writing the export costs ~12 us a call (2.4 s at the sandbox's 200,000): skipped where it cannot bind
    if PROGRAM_CAP * written_calls(program) * MIN_CALL_CHARS / CHARS_PER_TOKEN >= tokens:
        return tokens
    return min(tokens, PROGRAM_CAP * estimated_tokens(to_sketch(program)))


def length_score(*, mode: str = "sketch", source: str | None = None, n_calls: int | None = None,
                 program=None) -> float:
    """Sketch and revise modes score the source (capped by its ``program`` when given: ``sketch_tokens``);
    tools mode scores the number of brush calls."""
    if mode == "tools" or (source is None and n_calls is not None):
        return ramp(calls_to_tokens(int(n_calls or 0)))
    return ramp(sketch_tokens(source or "", program))


def counted_calls(commands) -> int:
    """The calls of a program the tools-mode length counts: each call that paints or builds a shape, and of the
    settings made between two of those, one per method (a setting made again before anything is painted was never
    read; settings after the last painting call, neither). ``background`` is not counted, as before."""
    from ..brush.commands import SPECS

    n = 0
    pending: set[str] = set()
    for c in commands:
        spec = SPECS.get(c.method)
        kind = spec.kind if spec is not None else "state"
        if c.method == "background" or kind in ("noop", "query"):
            continue
        if kind in ("draw", "shape"):
            n += 1 + len(pending)
            pending.clear()
        else:
            pending.add(c.method)
    return n
