"""Brush strokes, after p5.brush 2.2.2's ``stroke/stroke.js``.

A stroke walks its path in ``spacing`` px steps and drops a tip at every step:
soft discs for the pencil-like default brushes (skipped with probability set by
grain, jittered across the path by scatter), clouds of tiny dots for spray, big
faint discs for the marker, a sampled image for custom tips. Pressure follows
p5.brush's profiles (a bell along the stroke, or a custom curve). Stamps go
into the brush mask (8-bit alpha, as p5.brush's framebuffer); the compositor blends the mask when the
colour changes, darkening where it saturates. Every random number comes from
p5.brush's own stream in p5.brush's order (``_stroke_stamps``), so a stroke
after a fill, and a fill after a stroke, draw what they draw in the browser;
stamps are rasterised by the compiled kernels in ``raster``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ._jit import njit, njit_inline
from .brush_random import LUT_COS, LUT_SIN, advance, between, draw, draws, gauss, js_hypot, lut_index, rnd, rr
from .geometry import NO_FRAME, _calc_angle, arc_arrays, field_angle, moves_nothing, visible_steps, walk
from .raster import stamp_discs, stamp_tips

_KEYS = ("weight", "scatter", "sharpness", "grain", "opacity", "spacing", "pressure", "type", "tip", "rotate",
         "markerTip", "noise")
_STANDARD = {
    "pen": [0.3, 0.15, 0.9, 0.7, 150, 0.1, {"curve": [0.15, 0.2], "min_max": [1.2, 1]}],
    "rotring": [0.15, 0.05, 0.7, 0.9, 210, 0.1, {"curve": [0.35, 0.2], "min_max": [1.3, 1]}],
    "2B": [0.3, 0.75, 0.45, 0.8, 180, 0.1, {"curve": [0.1, 0.3], "min_max": [1.1, 0.9]}],
    "HB": [0.3, 0.6, 0.3, 0.7, 170, 0.1, {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]}],
    "2H": [0.2, 0.6, 0.3, 0.75, 120, 0.1, {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]}],
    "cpencil": [0.35, 0.55, 0.8, 0.7, 75, 0.1, {"curve": [0.15, 0.2], "min_max": [0.95, 1.1]}],
    "pastel": [0.7, 5, 0.91, 1, 30, 0.085 / 3, {"mode": "gaussian", "curve": [0.4, 0.05], "min_max": [1.09, 0.93]},
               "default", None, "natural", True, 1],
    "crayon": [0.33, 1.9, 0.75, 2, 159, 0.07, [1.1, 0.9], "default", None, "natural", True, 1],
    "charcoal": [0.35, 1.5, 0.68, 2, 120, 0.03, {"curve": [0.15, 0.4], "min_max": [1.1, 0.95]}],
    "spray": [0.2, 6, 15, 40, 90, 0.5, {"curve": [0.2, 0.35], "min_max": [0.7, 1]}, "spray"],
    "marker": [2, 0.2, None, None, 1, 0.03, {"curve": [0.35, 0.25], "min_max": [1.2, 0.85]}, "marker"],
}
_DEFAULT_PRESSURE = {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]}
_DEFAULTS = {"scatter": 0.0, "sharpness": 0.5, "grain": 1.0, "opacity": 150.0, "spacing": 1.0, "noise": 0.3,
             "markerTip": True, "rotate": None, "type": "default"}


@dataclass
class Pressure:
    """p5.brush's normalised pressure: a bell ("gaussian") or a curve on [0, 1] ("custom")."""

    kind: str
    min: float
    max: float
    curve: tuple | None = None  # gaussian: (c0, c1)
    samples: np.ndarray | None = None  # custom: curve sampled on [0, 1]


def _pressure(p) -> Pressure:
    if isinstance(p, (list, tuple)):
        s, m, e = (p[0], (p[0] + p[1]) / 2, p[1]) if len(p) == 2 else tuple(p)
        lo, hi = min(s, m, e), max(s, m, e)
        rng = (hi - lo) or 1
        ns, nm, ne = (s - lo) / rng, (m - lo) / rng, (e - lo) / rng
        t = np.linspace(0, 1, 65)
        curve = np.where(t < 0.5, ns + (nm - ns) * t * 2, nm + (ne - nm) * (t - 0.5) * 2)
        return Pressure("custom", lo, hi, samples=curve)
    if isinstance(p, dict):
        if "samples" in p:
            mm = p.get("min_max", [0, 1])
            return Pressure("custom", mm[0], mm[1], samples=np.asarray(p["samples"], np.float64))
        if "curve" in p and "min_max" in p:
            return Pressure("gaussian", p["min_max"][0], p["min_max"][1], curve=tuple(p["curve"]))
    return _pressure(_DEFAULT_PRESSURE)


@dataclass(frozen=True)
class Brush:
    name: str
    type: str
    weight: float
    scatter: float
    sharpness: float
    grain: float
    opacity: float
    spacing: float
    pressure: Pressure
    marker_tip: bool
    noise: float
    rotate: str | None
    tip: np.ndarray | None


#: The brush parameters a program may give as null (``commands._BRUSH_KEYS``): 0 in p5.brush's arithmetic.
_NULL_AS_ZERO = frozenset({"sharpness", "grain"})


def brush_params(name: str, custom: dict, scale: float) -> Brush:
    """The brush a name means now: built-in table or a custom ``add``, with ``scaleBrushes`` applied."""
    if name in custom:
        raw = dict(_DEFAULTS)
        # a missing parameter takes its default; sharpness and grain may be null, which p5.brush's arithmetic reads
        # as 0 (measured in Chromium: sharpness null paints as 0 does, grain null paints nothing), not the default
        raw.update({k: v for k, v in custom[name].items() if v is not None or k in _NULL_AS_ZERO})
        raw.setdefault("pressure", _DEFAULT_PRESSURE)
        b = _make_brush(name, raw, scale)
        if b.spacing == 0:
            from .errors import RenderError

            raise RenderError(f'brush "{name}": spacing 0 makes every stroke endless in p5.brush (its steps are '
                              "length / spacing; it runs out of memory): give it a spacing above 0")
        return b
    return _standard_brush(name, float(scale))


@functools.lru_cache(maxsize=64)
def _standard_brush(name: str, scale: float) -> Brush:
    """A built-in brush, built once per name and scale: every stroke op asks again, and nothing changes a Brush."""
    vals = _STANDARD.get(name, _STANDARD["HB"])
    raw = dict(_DEFAULTS)
    raw.update({k: v for k, v in zip(_KEYS, vals) if v is not None})
    if name == "marker":
        raw["sharpness"], raw["grain"] = None, None
    return _make_brush(name, raw, scale)


def _spacing(spacing, scale: float) -> float:
    """The step a stroke walks, as p5.brush's ``spacing()`` gives it: a spacing of 0 was read as 1 (``or``), and
    one under 1e-3 was raised to it, so strokes p5.brush walks in millions of steps (running out of memory at
    0: its step count is infinite) painted here in thousands. Under 1e-12 the step count would overflow; it is
    far past the render budget there anyway. (A negative spacing, where p5.brush takes no step, is still
    walked at 1e-3.)"""
    sp = (1.0 if spacing is None else float(spacing)) * scale
    if sp == 0:
        return 0.0  # refused where a stroke uses it (``brush_params``)
    return max(sp, 1e-12) if sp > 0 else 1e-3


def _make_brush(name: str, raw: dict, scale: float) -> Brush:
    tip = None
    if raw.get("type") == "custom" and raw.get("tip") is not None:
        tip = np.ascontiguousarray(np.asarray(raw["tip"], dtype=np.float64))
    return Brush(
        name=name, type=raw.get("type") or "default", weight=float(raw["weight"]) * scale,
        scatter=float(raw.get("scatter") or 0.0) * scale, sharpness=float(raw.get("sharpness") or 0.0),
        grain=float(raw.get("grain") or 0.0), opacity=float(raw.get("opacity", 150.0)),
        spacing=_spacing(raw.get("spacing"), scale), pressure=_pressure(raw.get("pressure")),
        marker_tip=bool(raw.get("markerTip", True)), noise=min(max(float(raw.get("noise", 0.3)), 0.0), 1.0),
        rotate=raw.get("rotate"), tip=tip)


@dataclass
class Path:
    """Where the tip goes: positions before each step, heading (deg) and plot pressure per step (the distance
    walked is summed step by step inside the stroke pass, as p5.brush sums it)."""

    xs: np.ndarray
    ys: np.ndarray
    heading: np.ndarray
    plot_pressure: np.ndarray
    length: float
    end: tuple[float, float]


class StrokeStream:
    """p5.brush's stroke-side random state: its ``rng`` stream (shared with fills), the pool of gaussians strokes
    sample (``gaussians``, emptied on every seed) and the pressure cache a stroke leaves to the next one."""

    def __init__(self, st: np.ndarray):
        self.st = st
        self.pool = np.empty(4096)
        self.npool = np.zeros(1, np.int64)
        # pressureCount, cachedPressure, 1 once a stroke's first stamp was a tip of NaN pressure (``_stroke_stamps``:
        # the compositor then paints nothing of the brush mask's pending strokes), and the heading of the last plot
        # step taken (p5.brush's ``_cachedPlotAngle``: a plot stroke's marker tips turn by it, ``_stroke_stamps``)
        self.pstate = np.array([10.0, math.nan, 0.0, 0.0])

    def reserve(self, n: int) -> None:
        if self.pool.shape[0] < n:
            grown = np.empty(max(n, 2 * self.pool.shape[0]))
            grown[: self.pool.shape[0]] = self.pool
            self.pool = grown


_KIND = {"default": 0, "spray": 1, "marker": 2, "custom": 3}


def _stroke_args(b: Brush, weight: float) -> tuple:
    """A brush's constants as ``_stroke_stamps`` takes them (after its per-stroke arguments), every number a float:
    a custom pressure written with whole numbers (``[1, 1]``) gave ints, and numba compiled the stroke kernels again
    for them (seconds, on the first such stroke)."""
    kind = _KIND.get(b.type, 0) if (b.type != "custom" or b.tip is not None) else -1
    pr = b.pressure
    custom = pr.kind == "custom"
    alpha0 = b.opacity if b.type in ("default", "spray") else b.opacity / min(weight, 1.3)
    samples = pr.samples if custom else np.zeros(2)
    curve = pr.curve if not custom else (0.0, 0.0)
    return (kind, b.grain, b.scatter, b.sharpness, b.weight, float(weight), float(alpha0), b.noise, b.marker_tip,
            1 if b.rotate == "random" else (2 if b.rotate == "natural" else 0), custom, float(pr.min), float(pr.max),
            float(curve[0]), float(curve[1]), samples)


def paint_stroke(mask: np.ndarray, dirty: np.ndarray, path: Path, b: Brush, weight: float, rs: StrokeStream,
                 steps: int | None = None, k0: int = 0, direction: float | None = None,
                 left: np.ndarray | None = None, xf: np.ndarray | None = None, walker=None) -> int:
    """Stamp one stroke into the brush mask; returns the number of stamps.

    ``steps`` is the whole stroke's step count when ``path`` holds only its steps k0.. (a line whose far parts
    cannot reach the canvas): every step still draws its numbers, as p5.brush's does. ``direction`` is a
    line's heading (degrees); a plot stroke takes each step's heading from ``path``. ``left`` is the stamp budget
    (``stamp_budget``), spent here. ``xf``: a frame the stamps are taken through (``_through``). ``walker``: the
    field the path was walked through (a "natural" image tip turns by its angle), none if None."""
    n = path.xs.shape[0] if steps is None else int(steps)
    left = _left(left)
    rs.reserve(2 * n)
    has_plot = direction is None
    dcs = 0.0 if has_plot else float(direction)
    (kind, grain, scatter, sharp, bweight, weight, alpha0, noise, marker_tip, rot, custom, pmin, pmax, ca, cb,
     samples) = _stroke_args(b, weight)
    xs, ys, ds, als, angs, m = _stroke_stamps(
        rs.st, rs.pool, rs.npool, rs.pstate, kind, n, k0, path.xs, path.ys, path.heading,
        path.plot_pressure, has_plot, dcs, float(path.length), float(b.spacing), float(path.end[0]), float(path.end[1]),
        grain, scatter, sharp, bweight, weight, alpha0, noise, marker_tip, rot, custom, pmin, pmax, ca, cb, samples,
        left, _field(walker))
    if xf is not None:
        _through(xs, ys, ds, m, xf)
    _stamp(mask, dirty, kind, b.tip if b.tip is not None else _NO_TIP, xs, ys, ds, als, angs, m, left)
    return m


_NO_TIP = np.zeros((1, 1))


def _field(walker) -> tuple:
    """``walker``'s field as ``_stroke_stamps`` takes it (``field_angle``); none for None."""
    if walker is None:
        return _NO_TIP, False, 1.0, 1.0, 1.0, 1.0
    return (walker.fgrid, bool(walker.field_on), float(walker.wiggle), float(walker.res), float(walker.width),
            float(walker.height))


def stamp_budget(stamps: float = math.inf, pixels: float = math.inf) -> np.ndarray:
    """What strokes may still stamp: (stamps, pixels their boxes cover), spent by the compiled stroke loops.

    Steps alone do not bound a stroke's work: a spray step stamps ``grain / pressure`` dots (any number, for a
    custom spray), and a stamp covers ``weight`` squared pixels (a marker of weight 1e6 covers the canvas at every
    step). A kernel that would overspend sets the entry to -1 and stamps nothing more; the caller refuses the
    program (``native.Budget``)."""
    return np.array([float(stamps), float(pixels)])


def _left(left: np.ndarray | None) -> np.ndarray:
    return stamp_budget() if left is None else left


@njit
def _through(xs, ys, ds, m, xf):
    """Stamps [0, m) taken through a frame ``xf`` = [a, b, c, d, e, f, s] (x, y -> a x + c y + e, b x + d y + f;
    diameters times s), as p5.brush's ``circle`` takes each stamp through the canvas transform: a stroke walked and
    scattered in a shape's own coordinates lands on the canvas as p5.brush's does, its scatter turned (or mirrored)
    with it."""
    if moves_nothing(xf):
        return
    a, b, c, d, e, f, sc = xf[0], xf[1], xf[2], xf[3], xf[4], xf[5], xf[6]
    for k in range(m):
        x = xs[k]
        y = ys[k]
        xs[k] = a * x + c * y + e
        ys[k] = b * x + d * y + f
        ds[k] = ds[k] * sc


@njit
def _stamp(mask, dirty, kind, tip, xs, ys, ds, als, angs, m, left):
    """Stamps [0, m) into the brush mask: image tips for a custom brush (kind 3), soft discs for the rest; their
    count and the pixels their boxes cover (clipped to the canvas's size, not its position) come out of ``left``,
    and none is stamped if they would overspend it."""
    if m == 0:
        return
    h, w = mask.shape
    grow = 1.4143 if kind == 3 else 1.0  # a rotated tip's box holds its diagonal
    area = 0.0
    for k in range(m):
        side = max(ds[k], 1.0) * grow + 1.0
        area += min(side, w) * min(side, h)
    if not area <= left[1]:  # (a NaN size counts as too big)
        left[1] = -1.0
        return
    left[0] -= m
    left[1] -= area
    if kind == 3:
        stamp_tips(mask, xs[:m], ys[:m], ds[:m], als[:m] / 255.0, angs[:m], tip, dirty)
    else:
        stamp_discs(mask, xs[:m], ys[:m], ds[:m], als[:m] / 255.0, dirty)


@njit_inline
def _reserved(pool, n):
    """The gaussian pool with room for n (``StrokeStream.reserve`` inside the compiled stroke loops)."""
    if pool.shape[0] >= n:
        return pool
    grown = np.empty(max(n, 2 * pool.shape[0]))
    grown[:pool.shape[0]] = pool
    return grown


@njit
def arc_steps(arcs, spacing):
    """The brush steps ``paint_arcs`` takes for these arcs (what the render budget is charged)."""
    total = 0
    for k in range(arcs.shape[0]):
        total += _arc_plot(arcs, k, spacing)[0]
    return total


@njit
def arc_strokes(arcs):
    """How many of these arcs p5.brush strokes: every one with a sweep (``arc`` returns before its plot at 0), of
    a step or none (an arc with no step still draws its numbers and blends its colour in, ``paint_arcs``)."""
    total = 0
    for k in range(arcs.shape[0]):
        total += arc_arrays(arcs[k, 0], arcs[k, 1], arcs[k, 2], arcs[k, 3], arcs[k, 4])[0] > 0
    return total


@njit_inline
def _arc_plot(arcs, k, spacing):
    """Arc k's steps (0: not drawn) and plot arrays."""
    nseg, cum, seg, ang, pres, length, sx, sy = arc_arrays(arcs[k, 0], arcs[k, 1], arcs[k, 2], arcs[k, 3], arcs[k, 4])
    n = int(math.floor(length / spacing + 0.5)) if nseg > 0 else 0  # JavaScript's Math.round, as ``plot_draw``
    return max(n, 0), cum, seg, ang, pres, length, sx, sy


def paint_arcs(mask: np.ndarray, dirty: np.ndarray, arcs: np.ndarray, b: Brush, weight: float, rs: StrokeStream,
               walker, left: np.ndarray | None = None) -> int:
    """Stroke each arc (rows cx, cy, r, start, end in degrees) through ``walker``'s field: what ``arc_plot``,
    ``Walker.walk_plot`` and ``paint_stroke`` do per arc, in one compiled call (a mass draws hundreds of arcs,
    and the Python between those calls cost as much as the strokes). Returns the number of steps."""
    tip = b.tip if b.tip is not None else _NO_TIP
    steps, pool = _arc_strokes(mask, dirty, np.ascontiguousarray(arcs, np.float64), float(b.spacing), walker.fgrid,
                               walker.field_on, float(walker.wiggle), float(walker.res), float(walker.width),
                               float(walker.height), rs.st, rs.pool, rs.npool, rs.pstate, *_stroke_args(b, weight),
                               tip, _left(left))
    rs.pool = pool
    return int(steps)


@njit
def _arc_strokes(mask, dirty, arcs, spacing, fgrid, field_on, wiggle, res, width, height, st, pool, npool, pstate,
                 kind, grain, scatter, sharp, bweight, weight, alpha0, noise, marker_tip, rot, custom, pmin, pmax, ca,
                 cb, samples, tip, left):
    """The arcs' strokes; returns (steps, the gaussian pool, grown if a stroke needed more room). Stops once the
    stamp budget ``left`` is overspent."""
    total = 0
    z = np.zeros(0)
    field = (fgrid, field_on, wiggle, res, width, height)
    for k in range(arcs.shape[0]):
        n, cum, seg, ang, pres, length, sx, sy = _arc_plot(arcs, k, spacing)
        if n == 0:
            if seg.shape[0] == 0:  # a zero sweep: p5.brush's arc() returns before it makes a plot
                continue
            # an arc under half a spacing long takes no step, but p5.brush's draw() runs all the same: the stroke's
            # seed and pressure numbers (and a marker's tips, at the arc's start) are drawn, so whatever is painted
            # after it draws the numbers it does in the browser (``_line_strokes`` does the same for a line)
            ox, oy, od, oa, og, m = _stroke_stamps(st, pool, npool, pstate, kind, 0, 0, z, z, z, z, True, 0.0,
                                                   length, spacing, sx, sy, grain, scatter, sharp, bweight, weight,
                                                   alpha0, noise, marker_tip, rot, custom, pmin, pmax, ca, cb,
                                                   samples, left, field)
            _stamp(mask, dirty, kind, tip, ox, oy, od, oa, og, m, left)
            if left[0] < 0.0 or left[1] < 0.0:
                break
            continue
        total += n
        pool = _reserved(pool, 2 * n)
        xs, ys, _, _, pang, ppres = walk(sx, sy, n, spacing, True, 0.0, cum, seg, ang, pres, True, length, fgrid,
                                         field_on, wiggle, res, width, height)
        ox, oy, od, oa, og, m = _stroke_stamps(st, pool, npool, pstate, kind, n, 0, xs[:n], ys[:n], pang, ppres, True,
                                               0.0, length, spacing, xs[n], ys[n], grain, scatter, sharp, bweight,
                                               weight, alpha0, noise, marker_tip, rot, custom, pmin, pmax, ca, cb,
                                               samples, left, field)
        _stamp(mask, dirty, kind, tip, ox, oy, od, oa, og, m, left)
        if left[0] < 0.0 or left[1] < 0.0:
            break
    return total, pool


@njit
def line_rows(ends):
    """Lines given by their ends (rows x1, y1, x2, y2) as ``paint_lines`` takes them: rows (x1, y1, length,
    heading), the length by V8's ``Math.hypot`` and the heading by p5.brush's ``calcAngle``."""
    rows = np.empty((ends.shape[0], 4))
    for k in range(ends.shape[0]):
        rows[k, 0] = ends[k, 0]
        rows[k, 1] = ends[k, 1]
        rows[k, 2] = js_hypot(ends[k, 2] - ends[k, 0], ends[k, 3] - ends[k, 1])
        rows[k, 3] = _calc_angle(ends[k, 0], ends[k, 1], ends[k, 2], ends[k, 3])
    return rows


def paint_lines(mask: np.ndarray, dirty: np.ndarray, lines: np.ndarray, b: Brush, weight: float, jitter: bool,
                rs: StrokeStream, walker, steps_left: float, left: np.ndarray | None = None,
                xf: np.ndarray | None = None, empty_draws: bool = False) -> int:
    """Stroke straight lines (rows x, y, length, heading in degrees) in one compiled
    call: a line, a flowLine, or a hatch's lines back to back with one brush. With ``jitter`` each line's weight
    is ``weight`` times a draw in [0.9, 1.1] from ``rs``'s stream, made before the line, as p5.brush's hatch
    weighs its lines. Far-off parts of a line without a field are skipped (``visible_steps``), but every step
    draws its random numbers, as p5.brush walks them all. Returns the steps taken (those that can reach the
    canvas); past ``steps_left`` it stops, and the caller's budget refuses the rest. ``xf``: a frame the lines are
    walked in, their stamps taken through it to the canvas (``_through``; nothing is skipped then). A line under
    half a step still draws its stroke's numbers (and a marker's tips), as p5.brush's ``draw()`` does with no
    step; one of length 0 too with ``empty_draws`` (a ``flowLine``: p5.brush's ``line`` returns before drawing
    one of length 0, its ``flowLine`` does not)."""
    tip = b.tip if b.tip is not None else _NO_TIP
    steps, pool = _line_strokes(mask, dirty, np.ascontiguousarray(lines, np.float64).reshape(-1, 4),
                                float(b.spacing), jitter, float(steps_left), float(b.opacity),
                                b.type in ("default", "spray"), walker.fgrid, walker.field_on, float(walker.wiggle),
                                float(walker.res), float(walker.width), float(walker.height), rs.st, rs.pool, rs.npool,
                                rs.pstate, *_stroke_args(b, weight), tip, _left(left), NO_FRAME if xf is None else xf,
                                bool(empty_draws))
    rs.pool = pool
    return int(steps)


@njit
def _line_strokes(mask, dirty, lines, spacing, jitter, steps_left, opacity, flat_alpha, fgrid, field_on, wiggle,
                  res, width, height, st, pool, npool, pstate, kind, grain, scatter, sharp, bweight, weight, alpha0,
                  noise, marker_tip, rot, custom, pmin, pmax, ca, cb, samples, tip, left, xf, empty_draws):
    """The lines' strokes (see ``paint_lines``); returns (steps, the gaussian pool, grown if needed). Stops once
    the stamp budget ``left`` is overspent."""
    total = 0.0
    z = np.zeros(1)
    framed = not moves_nothing(xf)
    field = (fgrid, field_on, wiggle, res, width, height)
    for k in range(lines.shape[0]):
        x1 = lines[k, 0]
        y1 = lines[k, 1]
        d = lines[k, 2]
        direction = lines[k, 3]
        w = weight
        a0 = alpha0
        if jitter:
            w = weight * rr(st, 0.9, 1.1)
            a0 = opacity if flat_alpha else opacity / min(w, 1.3)
        n = int(math.floor(d / spacing + 0.5)) if d != 0.0 else 0  # JavaScript's Math.round
        if n <= 0:
            if d != 0.0 or empty_draws:  # p5.brush's draw() with no step: the stroke's numbers, a marker's tips
                ox, oy, od, oa, og, mm = _stroke_stamps(st, pool, npool, pstate, kind, 0, 0, z[:0], z[:0],
                                                        np.zeros(0), np.ones(0), False, direction, d, spacing, x1,
                                                        y1, grain, scatter, sharp, bweight, w, a0, noise, marker_tip,
                                                        rot, custom, pmin, pmax, ca, cb, samples, left, field)
                _through(ox, oy, od, mm, xf)
                _stamp(mask, dirty, kind, tip, ox, oy, od, oa, og, mm, left)
                if left[0] < 0.0 or left[1] < 0.0:
                    break
            continue
        k0 = 0
        k1 = n
        if not field_on and not framed:
            k0, k1 = visible_steps(x1, y1, direction, spacing, float(n), w * (bweight + scatter * 3.0) + 4.0, width,
                                   height)
            k1 = max(k0, k1)
        total += k1 - k0
        if total > steps_left:
            return total, pool
        pool = _reserved(pool, 2 * n)
        li = lut_index(-direction)
        xs, ys, _, _, _, _ = walk(x1 + k0 * spacing * LUT_COS[li], y1 + k0 * spacing * LUT_SIN[li], k1 - k0,
                                  spacing, False, direction, z, z, np.zeros(2), np.ones(2), False, 0.0, fgrid,
                                  field_on, wiggle, res, width, height)
        m = k1 - k0
        ox, oy, od, oa, og, mm = _stroke_stamps(st, pool, npool, pstate, kind, n, k0, xs[:m], ys[:m], np.zeros(0),
                                                np.ones(0), False, direction, d, spacing, xs[m], ys[m], grain,
                                                scatter, sharp, bweight, w, a0, noise, marker_tip, rot, custom, pmin,
                                                pmax, ca, cb, samples, left, field)
        _through(ox, oy, od, mm, xf)
        _stamp(mask, dirty, kind, tip, ox, oy, od, oa, og, mm, left)
        if left[0] < 0.0 or left[1] < 0.0:
            break
    return total, pool


@njit
def _pressure_at(d, length, custom, pmin, pmax, pa, pb, pc, ct, cs, ck, samples):
    """p5.brush's ``simPressure`` at distance d: the bell of ``gauss()`` or the custom curve with its variation.
    NaN on a stroke of length 0, as there (0 / 0): its marker and image tips paint nothing."""
    if length == 0.0:
        return math.nan
    length = max(length, 1e-9)
    if custom:
        t = d / length
        tt = min(max(0.5 + (t - 0.5 + ct) * cs, 0.0), 1.0)
        ns = samples.shape[0] - 1
        u = tt * ns
        j = min(int(u), ns - 1)
        v = samples[j] + (u - j) * (samples[j + 1] - samples[j]) + pc + ck * (t - 0.5)
        out = pmin + v * (pmax - pmin)
        return min(max(out, min(pmin, pmax)), max(pmin, pmax))
    peak = pa * length
    hw = (pb * 1.2 if d < peak else pb * 0.8) * (length / 2.0)
    if hw == 0.0:
        hw = 1e-9
    return pmin + (1.0 / (1.0 + abs((d - peak) / hw) ** (2.0 * pc))) * (pmax - pmin)


@njit_inline
def _put(ox, oy, od, oa, og, m, x, y, d, a, ang):
    """Store stamp m (position, diameter, alpha 0-255, rotation); returns the next index."""
    ox[m] = x
    oy[m] = y
    od[m] = d
    oa[m] = a
    og[m] = ang
    return m + 1


@njit_inline
def _tip(st, kind, vib, rot, heading, fa, p, alpha):
    """``drawMarker`` / ``drawImageTip``: the offset, rotation (image tips) and alpha one tip draws, in order. ``fa``:
    the field's angle at the tip (``Position.angle()``), which a "natural" image tip adds to the heading."""
    rx = vib * rr(st, -1.0, 1.0)
    ry = vib * rr(st, -1.0, 1.0)
    ang = 0.0
    if kind == 3:
        if rot == 1:
            ang = int(rr(st, 0.0, 360.0)) * (math.pi / 180.0)
        elif rot == 2:
            ang = (-heading + fa) * (math.pi / 180.0)
    return rx, ry, ang, alpha * max(0.8, p) * rr(st, 0.9, 1.1)


@njit
def _step_pressures(n, length, step, custom, pmin, pmax, pa, pb, pc, ct, cs, ck, samples, has_plot, plot_pres):
    """Each step's pressure: p5.brush recomputes it every 10 steps (``pressureCount``) at the distance walked
    (steps of ``step`` summed, as ``Position.plotted`` sums them), times the plot's pressure there."""
    out = np.empty(n)
    cnt = 10
    pcache = 1.0
    d = 0.0
    for i in range(n):
        if cnt >= 10:
            pcache = _pressure_at(d, length, custom, pmin, pmax, pa, pb, pc, ct, cs, ck, samples)
            if has_plot:
                pcache *= plot_pres[i]
            cnt = 0
        cnt += 1
        out[i] = pcache
        d += step
    return out


#: how many numbers a pencil-type stroke draws ahead at a time (``brush_random.draws``)
_AHEAD = 1024


@njit
def _stroke_stamps(st, pool, npool, pstate, kind, n, k0, xs, ys, heading, plot_pres, has_plot, direction,
                   length, step, ex, ey, grain, scatter, sharp, bweight, weight, alpha0, noise, marker_tip, rot, custom,
                   pmin, pmax, ca, cb, samples, left, field):
    """Every random number one stroke draws, in p5.brush's order (``draw``: ``saveState``, the gaussian pool's
    top-up, one ``tip`` per step, ``restoreState``), and the stamps they place. Steps before k0 (whose
    positions ``xs`` does not hold) draw their numbers but place nothing. ``field``: the field the stroke walked
    (``field_angle``)."""
    rnd(st)  # current.seed
    if custom:
        pa = 0.0
        pb = 0.0
        pc = rr(st, -0.08, 0.08)
        ct = rr(st, -0.06, 0.06)
        cs = rr(st, 0.92, 1.08)
        ck = rr(st, -0.06, 0.06)
    else:
        pa = 0.5 + ca * rr(st, -1.0, 1.0)
        pb = 1.0 - cb * rr(st, 1.0, 1.5)
        pc = rr(st, 3.0, 3.5)
        ct = 0.0
        cs = 1.0
        ck = 0.0
    alpha = alpha0
    if noise > 0.0:
        alpha = max(0.0, alpha0 * (1.0 + gauss(st, 0.0, 0.1 * noise)))
    if has_plot:
        dcos = 1.0
        dsin = 0.0
    else:
        li = lut_index(direction)
        dcos = LUT_COS[li]
        dsin = LUT_SIN[li]
    pres = _step_pressures(n, length, step, custom, pmin, pmax, pa, pb, pc, ct, cs, ck, samples, has_plot, plot_pres)
    capf = n + 40.0  # a stamp per step at most, plus the marker tips
    if kind == 1:  # a spray step stamps ceil(grain / pressure) dots
        capf = 40.0
        for i in range(k0, min(n, k0 + xs.shape[0])):
            capf += np.ceil(grain / max(pres[i], 1e-3))  # (a float: a huge grain must not overflow an int)
        if grain > 0.0:
            for i in range(n):  # p5.brush's ceil(grain / 0) is Infinity: its loop over the dots never ends
                if pres[i] == 0.0 and math.copysign(1.0, pres[i]) > 0.0:  # (-0 gives -Infinity: no dots)
                    capf = np.inf
    if not capf <= left[0]:  # more stamps than the budget has left: allocate nothing, stamp nothing
        left[0] = -1.0
        none = np.empty(0)
        return none, none, none, none, none, 0
    cap = int(capf)
    ox = np.empty(cap)
    oy = np.empty(cap)
    od = np.empty(cap)
    oa = np.empty(cap)
    og = np.zeros(cap)
    m = 0
    vib = weight * scatter
    nx = xs.shape[0]
    # p5.brush's drawImageTip turns a "natural" image tip by its heading plus ``_position.angle()``, the field's
    # angle where the tip is: looked up here for those tips alone (the other kinds' steps never read it)
    turn = kind == 3 and rot == 2 and field[1]
    for phase in range(3):  # the opening marker tip, the steps, the closing marker tip
        if phase == 1:
            # the pool of gaussians grows to twice the step count before the steps draw from it
            while npool[0] < 2 * n:
                pool[npool[0]] = gauss(st, 0.0, 1.0)
                npool[0] += 1
            npl = npool[0]
            ss = np.int64(st[0])  # the stream's state in a register for the steps (``brush_random.draw``)
            # kind 0's numbers drawn ahead: ub[up:] are the stream's next uniforms after state ss
            ub = np.empty(min(_AHEAD, 6 * n) if kind == 0 else 0)
            draws(ss, ub)
            up = 0
            for i in range(n):
                j = i - k0
                p = max(pres[i], 1e-3)
                show = j >= 0 and j < nx
                x = xs[j] if show else 0.0
                y = ys[j] if show else 0.0
                if kind == 0:
                    # the step's numbers come from ``ub``, drawn ahead in bulk (``draws``): at most six a step
                    if up > ub.shape[0] - 6:
                        ss = advance(ss, up)
                        draws(ss, ub[:min(ub.shape[0], 6 * (n - i))])
                        up = 0
                    if ub[up] >= grain * p:  # (``draw(ss, 0.0, 1.0)`` is the uniform itself)
                        up += 1
                        continue
                    g = pool[int(ub[up + 1] * npl)]
                    v = vib * (sharp + ((1.0 - sharp) * g) / p)
                    if has_plot:
                        li = lut_index(heading[i])
                        c = LUT_COS[li]
                        s = LUT_SIN[li]
                    else:
                        c = dcos
                        s = dsin
                    perp = v * between(ub[up + 2], -1.0, 1.0)
                    along = 0.3 * v * between(ub[up + 3], -1.0, 1.0)
                    diam = p * p * bweight * between(ub[up + 4], 0.85, 1.15) * weight
                    a = (0.9 if p < 0.9 else p) * alpha * between(ub[up + 5], 0.75, 1.1)
                    up += 6
                    if show:
                        m = _put(ox, oy, od, oa, og, m, x + perp * s + along * c, y + perp * c - along * s, diam, a,
                                 0.0)
                elif kind == 1:
                    ss, u = draw(ss, 0.0, 1.0)
                    v = weight * scatter * p + (weight * pool[int(u * npl)] * scatter) / 3.0
                    ss, u = draw(ss, 0.9, 1.1)
                    sw = bweight * u
                    it = int(math.ceil(grain / p))
                    for _ in range(it):
                        ss, r = draw(ss, 0.9, 1.1)
                        ss, u = draw(ss, -1.0, 1.0)
                        rx = r * v * u
                        ss, yr = draw(ss, -1.0, 1.0)
                        if show:
                            dy = yr * math.sqrt(max((r * v) ** 2 - rx * rx, 0.0))
                            m = _put(ox, oy, od, oa, og, m, x + rx, y + dy, sw, alpha, 0.0)
                elif kind == 2 or kind == 3:
                    st[0] = ss
                    fa = field_angle(x, y, field) if turn and show else 0.0
                    rx, ry, ang, a = _tip(st, kind, vib, rot, heading[i] if has_plot else direction, fa, p, alpha)
                    ss = np.int64(st[0])
                    if show:
                        m = _put(ox, oy, od, oa, og, m, x + rx, y + ry, weight * bweight * p, a, ang)
            st[0] = advance(ss, up)  # (up stays 0 for the other kinds)
            if has_plot and n > 0:
                pstate[3] = heading[n - 1]
            # the cache the steps leave: counted since its last recomputation, every 10 steps
            pstate[0] = float((n - 1) % 10 + 1) if n > 0 else 10.0
            pstate[1] = pres[n - 1] if n > 0 else math.nan
            continue
        # markerTip: the pressure comes from the cache (a stroke's opening tip may reuse the last stroke's, NaN
        # after a stroke of length 0: p5.brush tests the cache for undefined, which draw() sets with the count at 10)
        if not marker_tip:
            continue
        if pstate[0] >= 10.0:
            dm = 0.0 if phase == 0 else length
            pp = _pressure_at(dm, length, custom, pmin, pmax, pa, pb, pc, ct, cs, ck, samples)
            if has_plot and plot_pres.shape[0] > 0:
                pp *= plot_pres[0] if phase == 0 else plot_pres[plot_pres.shape[0] - 1]
            pstate[1] = pp
            pstate[0] = 0.0
        pstate[0] += 1.0
        p = pstate[1]
        tx = xs[0] if phase == 0 and nx > 0 else ex
        ty = ys[0] if phase == 0 and nx > 0 else ey
        if kind == 2 or kind == 3:  # nine marker dabs, or four image tips, growing to a tenth of the pressure
            # a plot's tips turn ("natural") by p5.brush's ``_cachedPlotAngle``, which only a plot's steps set: the
            # opening tips take the last plot step's heading before this stroke (0 before any), a stroke of no step
            # leaves it as it was (a line has its own heading, ``direction``)
            hh = pstate[3] if has_plot else direction
            fa = field_angle(tx, ty, field) if turn else 0.0  # at the stroke's start, or its end (restoreState)
            for q in range(1, 10 if kind == 2 else 5):
                pq = p * q / 10.0
                rx, ry, ang, a = _tip(st, kind, vib, rot, hh, fa, pq, alpha * (8.0 if kind == 2 else 2.0))
                if p == p:  # a NaN pressure (``_pressure_at``): the tip's numbers drawn, nothing painted
                    m = _put(ox, oy, od, oa, og, m, tx + rx, ty + ry, weight * bweight * pq, a, ang)
                elif phase == 0:
                    # the stroke's first stamp is NaN: p5.brush's dirty rect for it starts NaN and stays so (every
                    # later comparison with it is false), and its union into the brush mask's rect makes that NaN
                    # too: nothing of the mask's pending strokes, before or after it, is composited (measured in
                    # Chromium: a marker line, a flowLine of length 0, a marker line: neither line paints)
                    pstate[2] = 1.0
    return ox, oy, od, oa, og, m
