"""Incremental tools-mode rendering: paint only a step's new calls onto the episode's kept canvas.

The native renderer paints a program op by op with one seeded generator, so a
painter that keeps its state between steps and paints only the new commands
gives the very pixels a full render of the whole program gives (checked byte for
byte in tests/test_env_environment.py); a copy of the compositor is flushed for
each image so the next step continues the same frame. The painter is
``aquarelle.render.native``'s own (``_Painter``): if that internal changes, or
anything here fails, the caller falls back to a full ``render_program``.

Painters live in the worker process that renders the episode (the runner pins an
episode to one worker), at most ``MAX_EPISODES`` per worker, least recently used
dropped; a miss or a program that is not an extension of the cached one simply
repaints from scratch.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

MAX_EPISODES = 32


class _Entry:
    def __init__(self, width: int, height: int, seed: int):
        from aquarelle.brush import PaintState
        from aquarelle.render.native import Budget, _Painter

        self.painter = _Painter(width, height, (255, 255, 255), seed, Budget())  # as render_full: p5.brush hashes its text
        self.state = PaintState()
        self.cmds: list = []
        self.key = (width, height, seed)
        self.digest: bytes | None = None  # of the last image given out
        self.dirty = False                # painted since that image


def _digest(img: Any) -> bytes:
    import hashlib

    import numpy as np

    return hashlib.blake2b(np.ascontiguousarray(img).tobytes(), digest_size=16).digest()


_CACHE: "OrderedDict[str, _Entry]" = OrderedDict()


def render_incremental(episode: str, program: Any, seed: int, since: int | None = None) -> tuple[Any, bool | None]:
    """The image of ``program`` (H x W x 3 uint8), painting only what the cached painter has not painted, and
    whether the commands from index ``since`` on changed any pixel of the image of those before (None when
    ``since`` is None). A shape can paint no pixel with every colour on (one enclosing the whole canvas, an arc
    of 360 degrees, a 0 x 0 rect: p5.brush paints none either), and coverage cannot say so; the policy is told."""
    from aquarelle.brush import CommandError
    from aquarelle.render import RenderError

    key = (program.width, program.height, seed)
    entry = _CACHE.pop(episode, None)
    cmds = program.commands
    if since is not None and not 0 <= since <= len(cmds):
        since = None
    if (entry is None or entry.key != key or entry.cmds != cmds[: len(entry.cmds)]
            or (since is not None and len(entry.cmds) > since)):  # (painted past it, a replayed step: to see it)
        entry = _Entry(program.width, program.height, seed)
    before = None
    try:
        for i in range(len(entry.cmds), len(cmds)):
            if i == since:
                fresh = entry.digest is not None and not entry.dirty
                before = entry.digest if fresh else _digest(copy.deepcopy(entry.painter.mix).finish())
            c = cmds[i]
            if c.method == "seed":
                entry.painter.reseed(c.args[0])
            elif c.method == "noiseSeed":
                entry.painter.renoise(c.args[0])
            try:
                op = entry.state.apply(c)
            except CommandError as e:
                raise RenderError(f"command {i}: {e}") from None
            if op is not None:
                entry.painter.paint(op)
                entry.dirty = True
            entry.cmds.append(c)
        img = copy.deepcopy(entry.painter.mix).finish()
    except BaseException:
        raise  # the entry is dropped: a half-painted canvas is never reused
    entry.digest, entry.dirty = _digest(img), False
    if since is not None and since == len(cmds):
        before = entry.digest  # nothing new
    changed = None if before is None else entry.digest != before
    _CACHE[episode] = entry
    while len(_CACHE) > MAX_EPISODES:
        _CACHE.popitem(last=False)
    return img, changed


def forget(episode: str) -> None:
    _CACHE.pop(episode, None)


def cached_episodes() -> int:
    return len(_CACHE)
