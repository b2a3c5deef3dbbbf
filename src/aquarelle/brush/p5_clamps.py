"""A sketch's brush calls with the arguments p5.brush 2.2.2 clamps, clamped, before they are validated.

Why: a command program is strict (``fillBleed(1.6)`` is refused there, and a tool call that says it is told
so), but a sketch is p5 code, and p5.brush clamps these arguments silently. Measured in Chromium, each painted
exactly what its clamped value paints (mean pixel difference 0.000), where the sandbox called the sketch an
invalid call, the gate's 0:

- ``fillBleed(strength)``, ``fillTexture(texture, border)``, ``beginShape(curvature)``: ``constrain(x, 0, 1)``;
- ``fill``'s opacity: ``map(opacity, 0, 255, 0, 1, true)`` (0 still means the default 150, ``opacity || 150``;
  a negative one paints the fill invisibly);
- ``wash``'s opacity past 0-255 (WebGL clamps the alpha it makes);
- a colour channel past 0-255 (p5's ``color()`` clamps): ``fill``, ``wash``, ``stroke``, ``background``,
  ``set``, ``hatchStyle``, ``mass``;
- ``fillBleed``'s direction: p5.brush tests ``direction === "out"``, so any other text (``"inward"``, ``"up"``)
  bleeds in;
- a stroke weight of 0 (``set``, ``strokeWeight``, ``hatchStyle``; ``map(i, 0, n, 0, 2)`` makes one): p5.brush
  draws its stamps at the weight's size and never smaller than its least size, so weight 0 paints exactly what a
  vanishing weight paints (``HAIRLINE``; measured: the same pixels). A marker-type brush is the exception: its
  alpha divides by the weight, and at 0 it paints nothing in p5.brush, a hairline here. A negative weight is still
  refused: p5.brush paints it otherwise than its size (mirrored scatter; measured, 0.04-3.4 mean pixel difference
  by brush);
- a ``flowLine`` of negative length: p5.brush rounds its length to a negative number of steps and takes none,
  after drawing the stroke's random numbers as for any stroke, so it paints exactly what length 0 paints (measured:
  the same pixels, and the strokes after it too);
- a key p5.brush does not read in ``hatch``'s or ``mass``'s options or in ``add``'s params (``{density: 2}``,
  ``{color: "red"}``) is ignored there, so it is dropped; the flags it tests for truth (``continuous``,
  ``outline``) become true or false as JavaScript reads them.

Only a call that needs a clamp is rewritten, so every sketch that ran before makes the program it made before.
What p5.brush does not clamp (a spline's curvature, a circle's irregularity past 10, a vertex pressure past 2:
measured, each paints otherwise) is still refused with the command's own message.
"""

from __future__ import annotations

import math
from typing import Any

from .commands import BRUSH_PARAM_NAMES, HATCH_OPTIONS, MASS_OPTIONS

#: The opacity a negative fill opacity becomes: p5.brush maps it to 0 and paints nothing, but a program's
#: opacity 0 means the default 150 (as ``fill(c, 0)`` does in p5.brush), so the program says "almost nothing".
INVISIBLE_FILL = 1e-6

#: The weight a stroke weight of 0 becomes: p5.brush's stamps at weight 0 paint what a vanishing weight paints.
HAIRLINE = 1e-9

_UNIT_ARGS = {"fillBleed": (0,), "fillTexture": (0, 1), "beginShape": (0,)}
_WEIGHT_ARG = {"set": 2, "strokeWeight": 0, "hatchStyle": 2}
_COLOUR_ARG = {"set": 1, "hatchStyle": 1, "mass": 1}


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _clamp(v: Any, lo: float, hi: float) -> Any:
    return min(max(v, lo), hi) if _num(v) else v


def _colour(v: Any) -> Any:
    """A grey number or an [r, g, b(, a)] list with its channels clamped to 0-255; any other form as it is."""
    if isinstance(v, (list, tuple)) and len(v) in (3, 4) and all(_num(c) for c in v):
        return [_clamp(c, 0, 255) for c in v]
    return _clamp(v, 0, 255)


def _fill_or_wash(method: str, args: list) -> list:
    """p5.brush's own reading, ``opacity = (arguments.length < 4 ? b : d)`` (so ``fill(r, g, b)``'s opacity is
    its green), clamped, then written back in the form the command reads the same way."""
    n = len(args)
    if n in (1, 2):
        colour, op = _colour(args[0]), (args[1] if n == 2 else None)
    elif n in (3, 4):
        colour, op = [_colour(c) for c in args[:3]], args[3] if n == 4 else args[1]
    else:
        return args  # the command says what is wrong
    if _num(op) and not (method == "fill" and op == 0):
        op = max(op, INVISIBLE_FILL) if method == "fill" and op < 0 else op
        op = _clamp(op, 0, 255)
    if n >= 3:
        if n == 3 and op == args[1] and colour == list(args[:3]):
            return args  # nothing to clamp (the green and the opacity are one argument here)
        return [*colour, op]
    return [colour] if op is None else [colour, op]


#: The options/params argument of each call p5.brush reads by key: its position, its keys, the flags among them.
_KEYED = {"hatch": (2, frozenset(HATCH_OPTIONS), ("continuous",)), "mass": (2, frozenset(MASS_OPTIONS), ("outline",)),
          "add": (1, BRUSH_PARAM_NAMES, ())}


def _truthy(v: Any) -> bool:
    """JavaScript's truth: 0, NaN, "", null and false are false."""
    return not (v is None or v is False or v == "" or (_num(v) and v == 0) or (isinstance(v, float) and math.isnan(v)))


def _known_keys(method: str, args: list) -> list:
    at, keys, flags = _KEYED[method]
    if len(args) <= at or not isinstance(args[at], dict):
        return args
    obj = {k: (_truthy(v) if k in flags and not isinstance(v, bool) else v)
           for k, v in args[at].items() if k in keys}
    return args if obj == args[at] else [*args[:at], obj, *args[at + 1:]]


def p5_clamped(method: str, args: list) -> list:
    """``args`` as p5.brush reads them (see the module docstring); the same list when nothing needed a clamp."""
    if method in _UNIT_ARGS:
        out = [(_clamp(a, 0, 1) if i in _UNIT_ARGS[method] else a) for i, a in enumerate(args)]
        if method == "fillBleed" and len(out) > 1 and isinstance(out[1], str) and out[1] != "out":
            out[1] = "in"
    elif method in ("fill", "wash"):
        out = _fill_or_wash(method, args)
    elif method in ("stroke", "background"):  # (colour), (grey, alpha) or (r, g, b, alpha?)
        k = 1 if len(args) <= 2 else 3
        out = [_colour(a) if i < k else a for i, a in enumerate(args)]
    elif method in _COLOUR_ARG and len(args) > _COLOUR_ARG[method]:
        k = _COLOUR_ARG[method]
        out = [_colour(a) if i == k else a for i, a in enumerate(args)]
    else:
        out = list(args)
    if method in _KEYED:
        out = _known_keys(method, out)
    if method == "flowLine" and len(out) > 2 and _num(out[2]) and out[2] < 0:
        out = [*out[:2], 0, *out[3:]]
    k = _WEIGHT_ARG.get(method)
    if k is not None and len(out) > k and _num(out[k]) and out[k] == 0:
        out = [*out[:k], HAIRLINE, *out[k + 1:]]
    return args if out == list(args) else out
