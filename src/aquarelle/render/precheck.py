"""The render budget's counts that a program shows before it is painted: painting calls and watercolour fills;
and whether it hatches a shape with nothing to draw the lines with (``unstyled_hatch``).

Why its own module: ``aquarelle check`` says whether ``render`` will refuse a program for them, and importing the
native renderer (numba) to count would cost check seconds; the renderer refuses with the same words.
"""

from __future__ import annotations

from ..brush.commands import Command, CommandError
from ..brush.state import PaintState
from .errors import RenderError

#: painting calls per program (``native.Budget.ops``)
MAX_OPS = 20_000
#: watercolour fills per program, ~5-60 ms each (``native.Budget.fills``)
MAX_FILLS = 600

SHAPES = ("endShape", "spline", "rect", "circle", "polygon")


def precheck(cmds: list[Command], ops_limit: int = MAX_OPS, fills_limit: int = MAX_FILLS) -> None:
    """Refuse a flood before painting anything: count painting calls and fills with a cheap state replay."""
    st = PaintState()
    ops = fills = 0
    for c in cmds:
        try:
            op = st.apply(c)
        except CommandError:
            return  # the real replay reports it with its index
        if op is None:
            continue
        ops += 1
        if c.method in SHAPES and op.state.fill.active:
            fills += 1
    if ops > ops_limit:
        raise RenderError(f"program is over the render budget: {ops} painting calls (at most {ops_limit})")
    if fills > fills_limit:
        raise RenderError(f"program is over the render budget: {fills} watercolour fills (at most {fills_limit})")


def unstyled_hatch(cmds: list[Command]) -> bool:
    """Whether a shape is hatched with no brush or colour for its lines (no ``hatchStyle``, no stroke). p5.brush
    throws at such a hatch's first line, so render refuses it then; whether it has a line depends on the shape's
    jittered outline and the spacing, which only painting it decides (``aquarelle check`` renders these few)."""
    st = PaintState()
    for c in cmds:
        try:
            op = st.apply(c)
        except CommandError:
            return False
        if op is None or c.method not in SHAPES + ("hatchArray",):
            continue
        h = op.state.hatch
        if (h.active or c.method == "hatchArray") and h.style is None and not (op.state.stroke.active
                                                                             and op.state.stroke.color):
            return True
    return False
