"""The command program's vocabulary: every p5.brush 2.2.2 function, typed and validated.

A command is ``{"method": name, "args": [...]}``, the same shape a tools-mode
action uses. ``validate(method, args)`` checks one call against its spec and
returns the canonical command (colours as ``#rrggbb``, defaults filled in), or
raises ``CommandError`` with one line naming the method and the problem.

The specs are data (``SPECS``), not 47 classes: one table drives validation, the
tool docstrings, the action spaces and the export back to JavaScript.
"""

from __future__ import annotations

import copy
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, model_validator

from .colors import ColorError, NotAColor, parse_color
from .text import describe

BUILTIN_BRUSHES = ("pen", "rotring", "2B", "HB", "2H", "cpencil", "pastel", "crayon", "charcoal", "spray", "marker")
BUILTIN_FIELDS = ("hand", "curved", "zigzag", "waves", "seabed", "spiral", "columns")
LEGACY_NAMES = {"bleed": "fillBleed", "setHatch": "hatchStyle", "segment": "move"}

#: Coordinates beyond this magnitude are refused outright (the renderer clips sane ones).
MAX_COORD = 100_000.0
#: Angles beyond this magnitude (degrees) are refused: far past any drawing's, far short of overflowing a span.
MAX_ANGLE = 1e9
#: Points in one spline/polygon, and polygons in one hatchArray/massArray.
MAX_POINTS = 10_000
#: Largest custom field grid (p5.brush's grid is 200 columns at any canvas size, rows in proportion; a sketch's is
#: kept at every 4th cell or closer: ``prelude.js`` ``sampleField``).
MAX_FIELD_CELLS = 200 * 200
#: Largest sampled custom tip (alpha grid).
MAX_TIP_CELLS = 64 * 64


class CommandError(ValueError):
    """One invalid call; the message is a single line naming the method."""


class Command(BaseModel):
    """One recorded p5.brush call in canonical form. Built directly (``Command(method=..., args=...)``, or from a
    dict inside ``Program(commands=[...])``) it is checked and made canonical by ``validate``, as ``from_calls``
    does: unchecked, a ``fill`` without its alpha reached the renderer and crashed it ("not enough values to
    unpack"). ``validate`` itself builds with ``model_construct`` (already checked)."""

    model_config = ConfigDict(frozen=True)
    method: str
    args: list[Any] = []

    @model_validator(mode="before")
    @classmethod
    def _canonical(cls, data: Any) -> Any:
        if isinstance(data, dict):
            c = validate(data.get("method"), data.get("args", []))
            return {"method": c.method, "args": c.args}
        return data

    def to_json(self) -> dict:
        return {"method": self.method, "args": list(self.args)}


REQUIRED = object()


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any = REQUIRED
    doc: str = ""


@dataclass(frozen=True)
class MethodSpec:
    name: str
    group: str
    kind: str  # "state" | "draw" | "shape" | "query" | "noop"
    params: tuple[Param, ...] = ()
    doc: str = ""
    custom: Callable[[list], list] | None = field(default=None, compare=False)

    @property
    def signature(self) -> str:
        parts = []
        for p in self.params:
            parts.append(p.name if p.default is REQUIRED else f"{p.name}={p.default!r}")
        return f"{self.name}({', '.join(parts)})"


# --------------------------------------------------------------------------- checks


def _num(method: str, pname: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        if not isinstance(v, numbers.Real):  # (numpy's numbers are Real; its bool is not)
            raise CommandError(f"{method}: {pname} must be a number, got {_show(v)}")
        v = int(v) if isinstance(v, numbers.Integral) else float(v)  # np.float64 was taken, np.float32 refused
    try:
        finite = math.isfinite(v)
    except OverflowError:  # an int past float range (JSON allows 10**4000): not a coordinate either
        finite = False
    if not finite:
        raise CommandError(f"{method}: {pname} must be finite, got {_show(v)}")
    return float(v) if isinstance(v, float) else v


def _show(v: Any) -> str:
    return describe(v)


def _point(method: str, pname: str, p: Any, with_pressure: bool = True) -> list:
    if not isinstance(p, (list, tuple)) or len(p) not in ((2, 3) if with_pressure else (2,)):
        raise CommandError(f"{method}: each of {pname} must be [x, y] or [x, y, pressure], got {_show(p)}")
    out = [_coord(method, f"{pname} x", p[0]), _coord(method, f"{pname} y", p[1])]
    if len(p) == 3:
        out.append(_check("unit2", method, f"{pname} pressure", p[2]))
    return out


def _bounded(method: str, pname: str, v: Any, limit: float, what: str = "value", unit: str = "") -> float:
    """A finite number within +-``limit``: one line naming the parameter and the bound otherwise."""
    x = _num(method, pname, v)
    if abs(x) > limit:
        raise CommandError(f"{method}: {pname} {_show(x)} is out of range (|{what}| <= {limit:g}{unit})")
    return x


def _coord(method: str, pname: str, v: Any) -> float:
    return _bounded(method, pname, v, MAX_COORD)


def _unicode(method: str, pname: str, s: str) -> str:
    """``s``, if it is Unicode text. A sketch writes a lone UTF-16 surrogate as '\\ud800' in plain ASCII; kept in a
    program (a brush or field name) it cannot be written as UTF-8 JSON: it broke the environment's state."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise CommandError(f"{method}: {pname} is not valid Unicode text (a lone UTF-16 surrogate "
                           f"\\u{ord(s[e.start]):04x} at character {e.start})") from None
    return s


def _angle(method: str, pname: str, v: Any) -> float:
    """Degrees, bounded: an arc from -1e308 to 1e308 spans inf degrees, which the renderer turned into NaN."""
    return _bounded(method, pname, v, MAX_ANGLE, "angle", " degrees")


def _options(method: str, v: Any, allowed: dict[str, str]) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise CommandError(f"{method}: options must be an object like {{{', '.join(allowed)}}}, got {_show(v)}")
    out = {}
    for k, val in v.items():
        if k not in allowed:
            raise CommandError(f"{method}: unknown option {_show(k)} (allowed: {', '.join(allowed)})")
        kind = allowed[k]
        if kind == "num|false":
            if val is False or val is None:
                out[k] = False
            else:
                out[k] = _num(method, k, val)
        elif kind == "bool":
            if not isinstance(val, bool):
                raise CommandError(f"{method}: option {k} must be true or false, got {_show(val)}")
            out[k] = val
        elif kind == "unit":
            out[k] = _check("unit", method, k, val)
        else:
            out[k] = _num(method, k, val)
    return out


def _check(kind: str, method: str, pname: str, v: Any) -> Any:
    if kind == "num":
        return _num(method, pname, v)
    if kind == "coord":
        return _coord(method, pname, v)
    if kind == "angle":
        return _angle(method, pname, v)
    if kind == "pos":  # a weight, scale or spacing: past ~1e19 the renderer cannot size a stamp
        x = _num(method, pname, v)
        if x <= 0:
            raise CommandError(f"{method}: {pname} must be > 0, got {_show(x)}")
        if x > MAX_COORD:
            raise CommandError(f"{method}: {pname} must be in (0, {MAX_COORD:g}], got {_show(x)}")
        return x
    if kind == "length":
        x = _num(method, pname, v)
        if x < 0 or x > MAX_COORD:
            raise CommandError(f"{method}: {pname} must be in 0-{MAX_COORD:g}, got {_show(x)}")
        return x
    if kind == "radius":
        x = _num(method, pname, v)
        if x <= 0 or x > MAX_COORD:
            raise CommandError(f"{method}: {pname} must be in (0, {MAX_COORD:g}], got {_show(x)}")
        return x
    if kind == "unit":
        x = _num(method, pname, v)
        if x < 0 or x > 1:
            raise CommandError(f"{method}: {pname} must be in 0-1, got {_show(x)}")
        return x
    if kind == "unit2":  # pressure: p5.brush multiplies by it; allow 0-2
        x = _num(method, pname, v)
        if x < 0 or x > 2:
            raise CommandError(f"{method}: {pname} must be in 0-2, got {_show(x)}")
        return x
    if kind == "opacity":
        x = _num(method, pname, v)
        if x < 0 or x > 255:
            raise CommandError(f"{method}: {pname} must be in 0-255, got {_show(x)}")
        return x
    if kind == "close":  # endShape's flag: p5.brush closes on any truthy value, so p5's CLOSE constant closes
        return True if v == "close" else _check("bool", method, pname, v)
    if kind == "bool":
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v in (0, 1):
            return bool(v)
        raise CommandError(f"{method}: {pname} must be true or false, got {_show(v)}")
    if kind == "name":
        if not isinstance(v, str) or not v or len(v) > 64:
            raise CommandError(f"{method}: {pname} must be a name (1-64 characters), got {_show(v)}")
        return _unicode(method, pname, v)
    if kind == "seed":
        if isinstance(v, str) and len(v) <= 256:
            return _unicode(method, pname, v)
        return _num(method, pname, v)
    if kind == "color":
        try:
            hexc, _ = parse_color(v)
        except NotAColor as e:
            raise CommandError(f"{method}: {pname} {e}") from None
        except ColorError as e:
            raise CommandError(f"{method}: {pname}: {e}") from None
        return hexc
    if kind == "points":
        if not isinstance(v, (list, tuple)):
            raise CommandError(f"{method}: {pname} must be a list of [x, y] points, got {_show(v)}")
        if len(v) > MAX_POINTS:
            raise CommandError(f"{method}: {pname} has {len(v)} points (at most {MAX_POINTS})")
        return [_point(method, pname, p) for p in v]
    if kind == "polygons":
        if not isinstance(v, (list, tuple)) or len(v) > 1000:
            raise CommandError(f"{method}: {pname} must be a list of polygons (at most 1000), got {_show(v)}")
        out = []
        for poly in v:
            pts = _check("points", method, pname, poly)
            if len(pts) < 3:
                raise CommandError(f"{method}: each polygon needs at least 3 points, got {len(pts)}")
            out.append(pts)
        return out
    if kind == "region":
        if not isinstance(v, (list, tuple)) or len(v) != 4:
            raise CommandError(f"{method}: {pname} must be [x1, y1, x2, y2], got {_show(v)}")
        return [_coord(method, pname, c) for c in v]
    if kind == "stroketype":
        if v not in ("curve", "segments"):
            raise CommandError(f'{method}: {pname} must be "curve" or "segments", got {_show(v)}')
        return v
    if kind == "rectmode":
        if v not in ("corner", "center"):
            raise CommandError(f'{method}: {pname} must be "corner" or "center", got {_show(v)}')
        return v
    if kind == "direction":
        if v not in ("out", "in"):
            raise CommandError(f'{method}: {pname} must be "out" or "in", got {_show(v)}')
        return v
    if kind == "angle|null":
        return None if v is None else _angle(method, pname, v)
    if kind == "irregularity":
        if v is False or v is None:
            return 0
        if v is True:
            return 1
        x = _num(method, pname, v)
        if x < -10 or x > 10:
            raise CommandError(f"{method}: {pname} must be in -10 to 10, got {_show(x)}")
        return x
    if kind == "hatchopts":
        return _options(method, v, HATCH_OPTIONS)
    if kind == "massopts":
        return _options(method, v, MASS_OPTIONS)
    if kind == "grid":
        return _grid(method, pname, v)
    if kind == "brushparams":
        return _brush_params(method, v)
    raise AssertionError(f"unknown param kind {kind}")


def _grid(method: str, pname: str, v: Any) -> list:
    if not isinstance(v, (list, tuple)) or not v or not all(isinstance(c, (list, tuple)) for c in v):
        raise CommandError(f"{method}: {pname} must be a grid (list of columns of angles)")
    rows = len(v[0])
    if rows == 0 or any(len(c) != rows for c in v):
        raise CommandError(f"{method}: {pname} columns must all have the same non-zero length")
    if len(v) * rows > MAX_FIELD_CELLS:
        raise CommandError(f"{method}: {pname} has {len(v) * rows} cells (at most {MAX_FIELD_CELLS})")
    return [[_num(method, pname, a) for a in col] for col in v]


_BRUSH_KEYS = {
    "type": "str",
    "weight": "num",
    "scatter": "num",
    "vibration": "num",
    "sharpness": "num|null",
    "definition": "num|null",
    "grain": "num|null",
    "quality": "num|null",
    "opacity": "num",
    "spacing": "num",
    "pressure": "pressure",
    "tip": "tip",
    "rotate": "str",
    "markerTip": "bool",
    "noise": "unit",
    "blend": "bool",
}
_LEGACY_BRUSH = {"vibration": "scatter", "definition": "sharpness", "quality": "grain"}
#: What a brush's params may hold (``add``); p5.brush ignores any other key, a sketch's are dropped (``p5_clamps``).
BRUSH_PARAM_NAMES = frozenset(_BRUSH_KEYS) | {"image"}
#: The keys hatch's and mass's options object may hold (``_options``), and which of them are flags.
HATCH_OPTIONS = {"rand": "num|false", "continuous": "bool", "gradient": "num|false"}
MASS_OPTIONS = {"precision": "num", "strength": "num", "gradient": "num|false", "outline": "bool"}


def _brush_params(method: str, v: Any) -> dict:
    if not isinstance(v, dict):
        raise CommandError(f"{method}: params must be an object, got {_show(v)}")
    if "image" in v or v.get("type") == "image":
        raise CommandError(f"{method}: image brushes load a resource and are not allowed; use a custom tip instead")
    out: dict[str, Any] = {}
    for k, val in v.items():
        if k not in _BRUSH_KEYS:
            raise CommandError(f"{method}: unknown brush parameter {_show(k)} "
                               f"(allowed: {', '.join(sorted(_BRUSH_KEYS))})")
        kind = _BRUSH_KEYS[k]
        key = _LEGACY_BRUSH.get(k, k)
        if key != k and key in v:
            continue  # p5.brush reads an old name only when the new one is undefined (given, even as null, it wins)
        if kind == "str":
            if not isinstance(val, str):
                raise CommandError(f"{method}: {k} must be a string, got {_show(val)}")
            out[key] = _unicode(method, k, val)
        elif kind == "num":
            out[key] = _num(method, k, val)
        elif kind == "num|null":
            out[key] = None if val is None else _num(method, k, val)
            if key == "grain" and val is not None and out[key] < 0:  # a negative spray grain crashed the renderer
                raise CommandError(f"{method}: {k} must be >= 0, got {_show(val)}")
        elif kind == "bool":
            out[key] = _check("bool", method, k, val)
        elif kind == "unit":
            out[key] = _check("unit", method, k, val)
        elif kind == "pressure":
            out[key] = _pressure(method, val)
        elif kind == "tip":
            out[key] = _tip(method, val)
    btype = out.get("type", "default")
    out["type"] = btype if btype in ("marker", "custom", "spray") else "default"
    if out["type"] == "custom" and "tip" not in out:
        raise CommandError(f"{method}: a custom brush needs a tip (a function in a sketch, a sampled grid in a program)")
    for req in ("weight",):
        if req not in out:
            raise CommandError(f"{method}: brush parameter {req!r} is required")
    if out["weight"] <= 0 or out["weight"] > 1000:
        raise CommandError(f"{method}: weight must be in (0, 1000], got {_show(out['weight'])}")
    return out


def _pressure(method: str, val: Any) -> Any:
    if isinstance(val, (list, tuple)):
        if len(val) not in (2, 3):
            raise CommandError(f"{method}: pressure list must be [start, end] or [start, mid, end]")
        return [_num(method, "pressure", x) for x in val]
    if isinstance(val, dict):
        allowed = {"curve", "min_max", "mode", "type", "samples"}
        bad = set(val) - allowed
        if bad:
            raise CommandError(f"{method}: unknown pressure key {_show(sorted(bad)[0])}")
        out: dict[str, Any] = {}
        for k in ("curve", "min_max"):
            if k in val:
                c = val[k]
                if not isinstance(c, (list, tuple)) or len(c) != 2:
                    raise CommandError(f"{method}: pressure {k} must be a pair of numbers")
                out[k] = [_num(method, f"pressure {k}", x) for x in c]
        if "samples" in val:
            s = val["samples"]
            if not isinstance(s, (list, tuple)) or not 2 <= len(s) <= 256:
                raise CommandError(f"{method}: pressure samples must be 2-256 numbers")
            out["samples"] = [_num(method, "pressure sample", x) for x in s]
        for k in ("mode", "type"):
            if k in val:
                out[k] = _unicode(method, f"pressure {k}", str(val[k]))
        # what p5.brush 2.2.2 reads at the brush's first stroke (each missing one throws there, measured in
        # Chromium): a custom curve's min_max and the curve itself (a sketch's function, sampled), a bell's
        # curve and min_max
        custom = "custom" in (out.get("type"), out.get("mode"))
        # a custom curve is its samples (a sketch's function), a bell's is its [a, b] pair: given both, the export
        # wrote one object with two curve keys, which p5.brush reads as the last one
        if custom and "curve" in out:
            raise CommandError(f"{method}: a custom pressure's curve is its samples; curve: [a, b] is a gaussian's")
        if not custom and "samples" in out:
            raise CommandError(f"{method}: pressure samples are a custom curve's: give type: 'custom' with them")
        need = (("min_max", "min_max: [lo, hi]"), ("samples", "samples (a curve: (t) => value in a sketch)")) \
            if custom else (("curve", "curve: [a, b]"), ("min_max", "min_max: [lo, hi]"))
        lacks = [say for k, say in need if k not in out]
        if lacks:
            raise CommandError(f"{method}: a {'custom' if custom else 'gaussian'} pressure needs {' and '.join(lacks)}"
                               "; p5.brush throws at the brush's first stroke without (or give pressure: [start, end])")
        return out
    if val is None:
        return None
    raise CommandError(f"{method}: pressure must be [start, end], [start, mid, end] or an object")


def _tip(method: str, val: Any) -> Any:
    if not isinstance(val, (list, tuple)) or not val or not all(isinstance(r, (list, tuple)) for r in val):
        raise CommandError(f"{method}: tip must be a sampled alpha grid (rows of numbers 0-1)")
    n = len(val) * len(val[0])
    if n > MAX_TIP_CELLS or any(len(r) != len(val[0]) for r in val):
        raise CommandError(f"{method}: tip grid must be rectangular with at most {MAX_TIP_CELLS} cells")
    return [[_check("unit", method, "tip alpha", a) for a in r] for r in val]


# --------------------------------------------------------------------------- colour forms


def _color_opacity(method: str, args: list, default_opacity: float, zero_means_default: bool) -> list:
    """fill/wash: (color, opacity?) or (r, g, b, a?) -> [hex, opacity].

    The opacity is taken as p5.brush 2.2.2 takes it, ``(arguments.length < 4 ? b : d)``: the second argument unless
    there are four, so ``fill(200, 40, 60)`` paints at opacity 40 (the green), and a colour's own alpha is never
    read (``fill(color(20, 90, 200, 100))`` paints at the default). Measured in Chromium: we used to paint the
    first at the default 150 where p5.brush's fill is barely visible, and the second at 100 where p5.brush's is at
    150."""
    n = len(args)
    if n == 0 or n > 4:
        raise CommandError(f"{method}: expected (color, opacity) or (r, g, b, opacity), got {n} arguments")
    try:
        if n <= 2:
            hexc, _ = parse_color(args[0])
            op = args[1] if n == 2 else None
        else:
            hexc, _ = parse_color(list(args[:3]))
            op = args[3] if n == 4 else args[1]
    except NotAColor as e:  # only a single colour argument can be of no colour form
        raise CommandError(f"{method}: argument 1 {e}") from None
    except ColorError as e:
        raise CommandError(f"{method}: {e}") from None
    if op is None or (zero_means_default and op == 0):
        op = default_opacity
    op = _check("opacity", method, "opacity", op)
    return [hexc, op]


def _one_color(method: str, args: list) -> list:
    """stroke/background: (color) or (r, g, b) or (grey) -> [hex]."""
    n = len(args)
    try:
        if n == 1:
            hexc, _ = parse_color(args[0])
        elif n in (3, 4):
            hexc, _ = parse_color(list(args[:3]))
        elif n == 2:  # (grey, alpha) in p5: keep the grey
            hexc, _ = parse_color(args[0])
        else:
            raise CommandError(f"{method}: expected a colour or r, g, b, got {n} arguments")
    except NotAColor as e:
        raise CommandError(f"{method}: argument 1 {e}") from None
    except ColorError as e:
        raise CommandError(f"{method}: {e}") from None
    return [hexc]


# --------------------------------------------------------------------------- the 47 (+ background)

P = Param
SPECS: dict[str, MethodSpec] = {}


def _spec(name: str, group: str, kind: str, *params: Param, doc: str = "", custom=None) -> None:
    SPECS[name] = MethodSpec(name, group, kind, tuple(params), doc, custom)


# config
_spec("instance", "config", "noop", P("p", "any", None), doc="Bind to a p5 instance (accepted, no effect).")
_spec("load", "config", "noop", P("target", "any", None), doc="Draw into a buffer (accepted, draws to the canvas).")
_spec("scaleBrushes", "config", "state", P("scale", "pos"), doc="Scale every brush's weight, scatter and spacing.")
_spec("seed", "config", "state", P("seed", "seed"), doc="Seed p5.brush's random generator.")
_spec("noiseSeed", "config", "state", P("seed", "seed"), doc="Seed p5.brush's noise generator.")
_spec("wRand", "config", "query", P("weights", "any"), doc="Pick a key by weight (returns a value; not recorded).")
# fields
_spec("field", "fields", "state", P("name", "name"), doc="Activate a vector field by name.")
_spec("noField", "fields", "state", doc="Deactivate the vector field.")
_spec("addField", "fields", "state", P("name", "name"), P("grid", "grid"), doc="Add a custom field (sampled angle grid, degrees).")
_spec("refreshField", "fields", "state", P("t", "num", 0), doc="Regenerate the current field at time t.")
_spec("listFields", "fields", "query", doc="List field names (returns a value; not recorded).")
_spec("wiggle", "fields", "state", P("amount", "num", 1), doc="Activate the 'hand' field with a wiggle amount.")
# brushes
_spec("box", "brushes", "query", doc="List brush names (returns a value; not recorded).")
_spec("add", "brushes", "state", P("name", "name"), P("params", "brushparams"), doc="Define a custom brush.")
_spec("clip", "brushes", "state", P("region", "region"),
      doc="Clip strokes to [x1, y1, x2, y2]: accepted, but p5.brush 2.2.2 does not clip, so nothing is clipped.")
_spec("noClip", "brushes", "state", doc="Remove the clipping region.")
# stroke
_spec("set", "stroke", "state", P("brush", "name"), P("color", "color"), P("weight", "pos", 1), doc="Pick a brush, colour and weight.")
_spec("pick", "stroke", "state", P("brush", "name"), doc="Pick a brush by name.")
_spec("stroke", "stroke", "state", P("color", "color"), doc="Set the stroke colour (enables stroke).",
      custom=lambda a: _one_color("stroke", a))
_spec("strokeWeight", "stroke", "state", P("weight", "pos"), doc="Set the stroke weight.")
_spec("noStroke", "stroke", "state", doc="Disable strokes.")
# fill
_spec("fill", "fill", "state", P("color", "color"),
      P("opacity", "opacity", 150, "opacity from 1 to 255 (0 is read as the default, 150, as p5.brush reads it)"),
      doc="Watercolour fill for following shapes.",
      custom=lambda a: _color_opacity("fill", a, 150, True))
_spec("noFill", "fill", "state", doc="Disable the watercolour fill.")
_spec("fillBleed", "fill", "state", P("strength", "unit"), P("direction", "direction", "out"), P("angle", "angle|null", None),
      doc="Bleed strength 0-1, 'out' or 'in', optional direction angle.")
_spec("fillTexture", "fill", "state", P("texture", "unit", 0.4), P("border", "unit", 0.4), P("scatter", "bool", True),
      doc="Texture and darker-border strengths 0-1 (0.8 and 0.5 until it is first called).")
_spec("wash", "fill", "state", P("color", "color"), P("opacity", "opacity", 150), doc="Flat wash fill.",
      custom=lambda a: _color_opacity("wash", a, 150, False))
_spec("noWash", "fill", "state", doc="Disable the wash.")
# hatch, mass
_spec("hatch", "hatch", "state", P("dist", "pos", 5), P("angle", "angle", 45), P("options", "hatchopts", {}),
      doc="Hatch following shapes: line distance, angle, {rand, continuous, gradient}.")
_spec("hatchStyle", "hatch", "state", P("brush", "name"), P("color", "color", "#000000"), P("weight", "pos", 1),
      doc="Brush, colour and weight for hatch lines.")
_spec("noHatch", "hatch", "state", doc="Disable hatching.")
_spec("hatchArray", "hatch", "draw", P("polygons", "polygons"),
      doc="Hatch a list of polygons now (each a point list or new brush.Polygon(points), as p5.brush needs).")
_spec("mass", "hatch", "state", P("brush", "name"), P("color", "color"), P("options", "massopts", {}),
      doc="Mass (dense scribble) following shapes.")
_spec("noMass", "hatch", "state", doc="Disable massing.")
_spec("massArray", "hatch", "draw", P("polygons", "polygons"),
      doc="Mass a list of polygons now (each a point list or new brush.Polygon(points), as p5.brush needs).")
# primitives
_spec("line", "primitives", "draw", P("x1", "coord"), P("y1", "coord"), P("x2", "coord"), P("y2", "coord"), doc="Stroke a line.")
_spec("flowLine", "primitives", "draw", P("x", "coord"), P("y", "coord"), P("length", "length"), P("dir", "angle"),
      doc="Stroke a line that follows the active field.")
_spec("beginStroke", "primitives", "shape", P("type", "stroketype"), P("x", "coord"), P("y", "coord"),
      doc='Start a stroke ("curve" or "segments") at x, y.')
_spec("move", "primitives", "shape", P("angle", "angle"), P("length", "length"), P("pressure", "unit2", 1),
      doc="Add a segment to the stroke.")
_spec("endStroke", "primitives", "draw", P("angle", "angle"), P("pressure", "unit2", 1), doc="Finish and draw the stroke.")
_spec("spline", "primitives", "draw", P("points", "points"), P("curvature", "unit", 0.5), doc="Stroke a spline through points.")
_spec("rect", "primitives", "draw", P("x", "coord"), P("y", "coord"), P("w", "length"), P("h", "length"),
      P("mode", "rectmode", "corner"), doc="Rectangle (filled/stroked/hatched by the current state).")
_spec("circle", "primitives", "draw", P("x", "coord"), P("y", "coord"), P("r", "radius"), P("irregularity", "irregularity", 0),
      doc="Circle of radius r; irregularity > 0 makes it hand-drawn.")
_spec("arc", "primitives", "draw", P("x", "coord"), P("y", "coord"), P("r", "radius"), P("start", "angle"), P("end", "angle"),
      doc="Stroke an arc from start to end angle, counter-clockwise on screen (a whole 360 degrees draws nothing).")
_spec("beginShape", "primitives", "shape", P("curvature", "unit", 0), doc="Start a shape (curvature 0-1).")
_spec("vertex", "primitives", "shape", P("x", "coord"), P("y", "coord"), P("pressure", "unit2", 1), doc="Add a vertex to the shape.")
_spec("endShape", "primitives", "draw", P("close", "close", False),
      doc="Finish the shape (close it with true, or p5's CLOSE).")
_spec("polygon", "primitives", "draw", P("points", "points"), doc="A polygon from points.")
# p5 itself, recorded because it paints the canvas
_spec("background", "canvas", "draw", P("color", "color"), doc="Paint the whole canvas (p5's background).",
      custom=lambda a: _one_color("background", a))



#: The frame that is the canvas's own (no turn, scale or move).
IDENTITY_FRAME = (1, 0, 0, 1, 0, 0)

#: The calls a program may hold in a shape's own coordinates after a ``frame`` (the sandbox's prelude records
#: them so, its ``FRAMED`` plus a hatching ``hatchArray``; the export draws them through p5's matrix): a
#: beginShape's vertices up to its endShape, and a beginStroke's moves up to its endStroke, with them.
FRAMED_CALLS = frozenset({"rect", "circle", "polygon", "beginShape", "spline", "line", "flowLine", "arc",
                          "beginStroke", "hatchArray"})

#: The least and greatest scale a frame may have: the range the sandbox frames a shape in (``ownFrame``). A frame
#: is tested here with the sandbox's own arithmetic (the same IEEE operations, so the same last bit), so every frame
#: it writes is taken and every frame taken is one the sandbox writes again from the exported sketch (a looser
#: test took frames the sandbox then baked into the shape: an irregular circle came back a smooth polygon).
FRAME_SCALE = (1e-4, 1e4)
#: How far from a similarity (relative to the scale) a frame may be: the sandbox's ``ownFrame`` and ``similarity``
FRAME_TOLERANCE = 1e-9


def _frame(args: list) -> list:
    """A frame's six numbers: a rotation, a scale the same on both axes, perhaps a mirror (a similarity), a move."""
    if len(args) != 6:
        raise CommandError(f"frame: takes 6 numbers (a, b, c, d, e, f), got {len(args)}")
    a, b, c, d, e, f = (_coord("frame", n, v) for n, v in zip("abcdef", args))
    s = math.sqrt(a * a + b * b)  # as the sandbox computes it (not hypot, which may round otherwise)
    tol = FRAME_TOLERANCE * s
    if not ((abs(a - d) <= tol and abs(b + c) <= tol) or (abs(a + d) <= tol and abs(b - c) <= tol)):
        raise CommandError(f"frame: (a, b, c, d) must be a rotation and one scale, perhaps mirrored (a = d and b = -c,"
                           f" or a = -d and b = c), got {_show([a, b, c, d])}")
    if not FRAME_SCALE[0] <= s <= FRAME_SCALE[1]:
        raise CommandError(f"frame: scale must be in {FRAME_SCALE[0]:g}-{FRAME_SCALE[1]:g}, got {s:g}")
    return [a, b, c, d, e, f]


# p5's transform, recorded where p5.brush builds a shape or stroke in its own axes (the sandbox writes it; not a tool)
_spec("frame", "canvas", "state", *(P(n, "coord") for n in "abcdef"),
      doc="The rotation, scale and move the next shapes and strokes are drawn through (their coordinates are their "
          "own).",
      custom=_frame)

# p5's push()/pop(): p5.brush 2.2.2 saves its fill, wash, stroke, hatch, mass and field state with p5's (its p5
# add-on wraps them), so what a sketch sets between them is undone at pop()
_spec("push", "canvas", "state", doc="p5's push(): save the fill, wash, stroke, hatch, mass and field state.")
_spec("pop", "canvas", "state", doc="p5's pop(): restore the state the matching push() saved.")

#: Written by the sandbox from p5's own calls (the skeleton's ``background``, ``push``/``pop``, and ``frame``: p5's
#: transform at a shape), not p5.brush functions.
NOT_BRUSH = ("background", "frame", "push", "pop")
#: The 47 p5.brush functions (``background``, ``push``, ``pop`` and ``frame`` are p5's own, recorded alongside).
BRUSH_METHODS = tuple(n for n in SPECS if n not in NOT_BRUSH)
assert len(BRUSH_METHODS) == 47, len(BRUSH_METHODS)


def given_args(args: list) -> list:
    """The arguments without their trailing unset ones (None): a tool's parameters left out, a call as written."""
    n = len(args)
    while n and args[n - 1] is None:
        n -= 1
    return list(args[:n])


def validate(method: Any, args: Any = ()) -> Command:
    """Check one call and return it in canonical form, or raise CommandError."""
    if not isinstance(method, str):
        raise CommandError(f"method must be a string, got {_show(method)}")
    spec = SPECS.get(method)
    if spec is None:
        hint = f" (p5.brush 2.x calls it {LEGACY_NAMES[method]})" if method in LEGACY_NAMES else ""
        raise CommandError(f"unknown method {_show(method)}{hint}")
    if args is None:
        args = []
    if not isinstance(args, (list, tuple)):
        raise CommandError(f"{method}: args must be a list, got {_show(args)}")
    args = list(args)
    if spec.custom is not None:
        return Command.model_construct(method=method, args=spec.custom(args))
    if spec.kind in ("query", "noop"):
        return Command.model_construct(method=method, args=[])
    if len(args) > len(spec.params):
        raise CommandError(f"{method}: takes at most {len(spec.params)} arguments ({spec.signature}), got {len(args)}")
    out = []
    for i, p in enumerate(spec.params):
        if i < len(args) and not (args[i] is None and p.default is not REQUIRED and p.kind != "angle|null"):
            out.append(_check(p.kind, method, p.name, args[i]))
        elif p.default is REQUIRED:
            raise CommandError(f"{method}: missing argument {p.name!r} ({spec.signature})")
        else:
            out.append(copy.deepcopy(p.default))
    return Command.model_construct(method=method, args=out)
