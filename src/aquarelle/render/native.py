"""The native renderer: a command program to an RGB image with p5.brush 2.2.2's look, no browser.

``render`` replays the program with ``aquarelle.brush.state`` (the same state
semantics every part uses) and paints each DrawOp the way p5.brush's
``show()`` does: wash, watercolour fill, mass, hatch, then the brush stroke.
Randomness is seeded by the ``seed`` argument, else the program's seed, else 0
(the program's own ``seed``/``noiseSeed`` calls reseed), so the same program and
seed give byte-identical pixels. Fills, strokes, hatching, mass, fields and
circle/plot geometry draw from p5.brush's own two streams exactly as p5.brush
does (``brush_random``), so under the same seed they come out as in the
browser.

Work is bounded per program (``Budget``): a flood of shapes, vertices, brush
steps, brush stamps (or their area) or filled area stops with ``RenderError``
instead of running for minutes.
Degenerate shapes (fewer than 3 vertices for a fill, zero length) paint
nothing and are recorded in ``RenderResult.warnings``.
"""

from __future__ import annotations

import math
import numbers
import threading
from dataclasses import dataclass, field as dfield

import numpy as np

from ..brush.colors import rgb_of
from ..brush.commands import Command
from ..brush.program import MAX_PIXELS as _PROGRAM_MAX_PIXELS
from ..brush.program import Program
from ..brush.state import DrawOp, PaintState
from ..brush.commands import CommandError
from . import fields as _fields
from .brush_random import Stream2, Uniform, fill_pools, make_state
from .compositor import Compositor, paint_background
from .errors import RenderError
from .precheck import MAX_FILLS, MAX_OPS, precheck
from .fill import FillScratch, paint_fill
from .mix import Work, make_work
from .geometry import Plot, Walker, arc_plot, circle_plot, spline_plot
from .hatch import MAX_HATCH_LINES, hatch_lines, mass_arcs, mass_layers, pivot_bias, scan_checks
from .raster import fill_polygon
from .resample import render_size, resample
from .strokes import (Path, StrokeStream, arc_steps, arc_strokes, brush_params, line_rows, paint_arcs, paint_lines,
                      paint_stroke, stamp_budget)

__all__ = ["render", "render_full", "RenderError", "RenderResult", "Budget"]

#: Largest canvas rendered (pixels): the program's own limit, checked again for one built around its validation
MAX_PIXELS = _PROGRAM_MAX_PIXELS
#: The largest "canvas" the area budgets count in (pixels; rows: its side). A bigger canvas is charged by the pixel,
#: so its fills and stamps are bounded in time as a 600 x 600 painting's are, not 46 times longer at 4096 x 4096
BUDGET_CANVAS = 600


def _refuse_endless_hatch(lines: np.ndarray, dist: float) -> None:
    """A hatch scan that reached ``MAX_HATCH_LINES``: p5.brush strokes every line of it and runs past its time
    limit (measured in Chromium: hatch(0.001) over a 100 px circle), so it is over the budget, not cut short."""
    if len(lines) >= MAX_HATCH_LINES:
        raise RenderError(f"program is over the render budget: a hatch {dist:.3g} apart makes more than "
                          f"{MAX_HATCH_LINES} lines (p5.brush strokes each; it does not finish)")


@dataclass
class Budget:
    """Work allowed per program; exceeding any limit raises RenderError. Areas count in canvases and rows in
    canvas heights, a canvas bigger than ``BUDGET_CANVAS`` square in ones of that size."""

    ops: int = MAX_OPS  # painting calls (``precheck``: counted before painting, and by ``aquarelle check``)
    fills: int = MAX_FILLS  # watercolour fills (~5-60 ms each)
    fill_area: float = 150.0  # sum of fill bounding boxes, in canvases
    # a fill's cost grows with its outline, not only its box. With fillBleed(1): ~18 us per vertex and ~3.3 ms per
    # canvas height its edges cross (every grown layer rasterises them), so a 4,990-vertex star over the canvas
    # took 1.9 s, and 150 of them fitted the fill-area budget
    fill_vertices: int = 150_000  # the fills' vertices (the most a reference painting fills: 5,418)
    fill_rows: float = 600.0  # the rows their edges cross, in canvas heights (the most: 43)
    wash_rows: float = 4_000.0  # the rows washes' edges cross (~0.4 ms each for a self-crossing outline; the most: 8)
    vertices: int = 2_000_000  # polygon vertices generated
    # brush tip steps: dense hatching (hatch(3, ...) over most of the canvas with a wide brush) takes 6-10 million
    # and renders in 0.3-0.7 s here, and p5.brush paints it; at 6 million it was refused. ~70 ns a step
    steps: int = 12_000_000
    # every step of the straight lines, on the canvas or far off it: a step off it is skipped but still draws its
    # random numbers, as p5.brush walks it (~40 ns). Charged before the lines are walked: 19,990 charcoal lines from
    # (-50000, -50000) to (50000, 50000), 4.7 million steps each and none on the canvas, ran for minutes
    line_steps: int = 60_000_000
    hatch_lines: int = MAX_HATCH_LINES  # (a scan stops there: more is refused, ``_refuse_endless_hatch``)
    hatch_checks: float = 2e9  # scanlines x edges a hatch scans, ~0.7 ns each (the most a reference uses: 35,742)
    mass_checks: float = 1e8  # a mass's lines x its shape's vertices, ~11 ns each (the most a reference uses: 34,551)
    stamps: int = 10_000_000  # brush stamps: a spray step stamps many dots (40 bytes each while a stroke is built)
    stroke_area: float = 6000.0  # the stamps' boxes summed, in canvases (the most a reference painting stamps: 72)
    # the mask boxes composited, in canvases: ~0.4 ms each at 600x600, more when its pixels need fresh mixes (the
    # most a reference composites: 3). Fills composite themselves and are budgeted above
    composite_area: float = 300.0

    # the budgets also share one allowance: the fractions of each used, summed (``used["share"]``). Each budget
    # alone allows seconds at most (150 canvas-wide textured fills: ~6 s), but a program near several at once added
    # them up. A call is checked after it is charged, so one call can pass this by its own share (the most a
    # reference painting uses in all: 0.52, ``tree_mass``)
    share: float = 2.0

    def spend(self, used: dict, key: str, amount: float) -> None:
        limit = getattr(self, key)
        used[key] = used.get(key, 0) + amount
        if used[key] > limit:
            self.refuse(key)
        used["share"] = used.get("share", 0.0) + amount / limit
        if used["share"] > self.share:
            self.refuse("share")

    def refuse(self, key: str) -> None:
        unit = _UNITS.get(key, key.replace("_", " "))
        raise RenderError(f"program is over the render budget: more than {getattr(self, key):g} {unit}")


class Frame:
    """A shape's frame (``frame(a, b, c, d, e, f)``: a similarity, perhaps mirrored, and a move), as p5.brush draws
    a shape through the canvas transform. Its coordinates are the shape's own; p5.brush walks its outline (and reads
    the field) at those plus the move, the "walk" coordinates here, builds its fill and hatch from the polygon that
    walk gives in its own coordinates and takes them to the canvas; its strokes are walked and scattered there too,
    each stamp taken through the transform (``strokes._through``), as p5.brush's are."""

    def __init__(self, frame: tuple) -> None:
        a, b, c, d, e, f = (float(v) for v in frame)
        self.m = (a, b, c, d, e, f)
        self.scale = math.hypot(a, b)
        self.xf = np.array([a, b, c, d, e, f, self.scale])  # own -> canvas, for the fill kernel
        # walk (own + move) -> canvas, for the strokes' stamps: A (p - t) + t
        self.wxf = np.array([a, b, c, d, e - (a * e + c * f), f - (b * e + d * f), self.scale])

    def canvas(self, pts) -> list:
        """Own coordinates to the canvas, as the sandbox transforms a point (x, y, then any extra items)."""
        a, b, c, d, e, f = self.m
        return [[a * p[0] + c * p[1] + e, b * p[0] + d * p[1] + f, *p[2:]] for p in pts]

    def walk(self, pts) -> list:
        """Own coordinates to the walk's (plus the move)."""
        e, f = self.m[4], self.m[5]
        return [[p[0] + e, p[1] + f, *p[2:]] for p in pts]

    def moved(self, rows: np.ndarray) -> np.ndarray:
        """Line rows (x, y, length, heading) measured in own coordinates, started where they are walked (plus the
        move): p5.brush takes a line's length, so its step count, in the shape's coordinates."""
        rows[:, 0] += self.m[4]
        rows[:, 1] += self.m[5]
        return rows

    def own(self, v: np.ndarray) -> np.ndarray:
        """Walk coordinates (N x 2) back to the shape's own, as p5.brush's walk gives its polygon."""
        return v - np.array([self.m[4], self.m[5]]) if len(v) else v

    def to_canvas(self, v: np.ndarray) -> np.ndarray:
        """Own coordinates (N x 2) to the canvas."""
        a, b, c, d, e, f = self.m
        return np.stack([a * v[:, 0] + c * v[:, 1] + e, b * v[:, 0] + d * v[:, 1] + f], axis=1) if len(v) else v


def _edges(verts: np.ndarray) -> np.ndarray:
    """A closed polygon's edges as ``line`` strokes them (rows x, y, length, heading; ``line_rows``), the closing
    edge last: p5.brush draws an outline a ``line`` per edge, and one ``_straight`` call strokes them all as those
    calls would (a 9,990-vertex outline took 250 ms a line at a time)."""
    v = np.asarray(verts, np.float64).reshape(-1, 2)
    return line_rows(np.ascontiguousarray(np.concatenate([v, np.roll(v, -1, axis=0)], axis=1)))


def _edge_rows(verts: np.ndarray, h: int, unit: float) -> float:
    """The pixel rows a closed polygon's edges cross, in ``unit`` rows (a canvas height, at most
    ``BUDGET_CANVAS``; rows off the canvas are not rasterised): what rasterising its outline costs, whatever its
    box."""
    ys = np.clip(verts[:, 1], 0.0, h)
    return float(np.abs(np.diff(ys, append=ys[:1])).sum()) / unit


_UNITS = {"stroke_area": "canvases of brush stamps", "stamps": "brush stamps",
          "composite_area": "canvases of mask composited", "fill_area": "canvases of fill boxes",
          "share": "budgets' worth of work in all (the fraction of each budget used, summed)",
          "fill_rows": "canvas heights of fill edges", "wash_rows": "canvas heights of wash edges",
          "mass_checks": "mass arc checks (hatch lines x shape vertices)",
          "hatch_checks": "hatch scan checks (scanlines x shape edges)",
          "line_steps": "steps of straight lines, on the canvas or off it"}


@dataclass
class RenderResult:
    image: np.ndarray
    warnings: list[str] = dfield(default_factory=list)
    stats: dict = dfield(default_factory=dict)


_LOCAL = threading.local()
_KEEP_SCRATCH_PIXELS = 1024 * 1024


def _per_thread(name: str, h: int, w: int, make):
    """``make(h, w)``, kept per thread between renders of one size: fresh canvas-sized buffers cost more in
    page faults than a small painting costs to paint. Big canvases are not worth holding per thread."""
    if h * w > _KEEP_SCRATCH_PIXELS:
        return make(h, w)
    held = getattr(_LOCAL, name, None)
    if held is None or held[0] != (h, w):
        held = ((h, w), make(h, w))
        setattr(_LOCAL, name, held)
    return held[1]


def _scratch(h: int, w: int) -> FillScratch:
    """The fill buffers (every fill leaves them zeroed), sharing the thread's composite buffers."""
    return _per_thread("scratch", h, w, lambda hh, ww: FillScratch(hh, ww, _work(hh, ww)))


def _work(h: int, w: int) -> Work:
    """The composite buffers (a composite overwrites what it reads); the canvas compositor and the fills
    share them."""
    return _per_thread("work", h, w, make_work)


class _Painter:
    """Paints DrawOps onto a Compositor; one per render."""

    def __init__(self, width: int, height: int, background: tuple[int, int, int], seed: int, budget: Budget):
        self.w, self.h = width, height
        # the area budgets' canvas, in pixels, and the row budgets' height (``BUDGET_CANVAS``)
        self.unit = unit = float(min(width * height, BUDGET_CANVAS * BUDGET_CANVAS))
        self.rows = float(min(height, BUDGET_CANVAS))
        self.budget = budget
        self.used: dict = {}
        used = self.used  # the charge holds the dict, not the painter: no cycle, so a render's buffers free at once
        self.mix = Compositor(width, height, background, _work(height, width))
        self.mix.charge = lambda px: budget.spend(used, "composite_area", px / unit)
        self.scratch: FillScratch | None = None
        self.reseed(seed)
        self.fields = _fields.FieldBank(width, height, seed)
        self.left = stamp_budget(budget.stamps, budget.stroke_area * unit)
        self.warnings: list[str] = []

    # ---------------------------------------------------------------- context

    def reseed(self, s) -> None:
        """p5.brush's ``seed``: both of its streams restart and the fill's gaussian pools are drawn anew."""
        self.brush_rng = make_state(s)
        self.pools = fill_pools(self.brush_rng)
        # (a seed leaves the mask's rect as it is, and the last plot step's heading)
        kept = self.strokes.pstate[2:].copy() if hasattr(self, "strokes") else None
        self.strokes = StrokeStream(self.brush_rng)
        if kept is not None:
            self.strokes.pstate[2:] = kept
        self.mix.stroke_state = self.strokes.pstate
        self.rng2 = Stream2(s)

    def renoise(self, s) -> None:
        """p5.brush's ``noiseSeed``: new noise for fields generated from now on (generated ones stay)."""
        self.fields.noise = _fields.Noise2(s)

    def field_command(self, st: PaintState, method: str) -> None:
        """``field``/``wiggle`` generate a built-in field the first time it is named, ``refreshField`` anew."""
        if st.flow.name:
            self.fields.activate(st.flow.name, st.flow.t, st.fields, self.rng2, refresh=method == "refreshField")

    def walker(self, st: PaintState, override: tuple[str, float] | None = None) -> Walker:
        if override is not None:
            name, wig = override
            grid = self.fields.get(name, 0, {}, self.rng2)
            return Walker(self.w, self.h, grid, True, wig, self.fields.res)
        if st.flow.active and st.flow.name:
            grid = self.fields.get(st.flow.name, st.flow.t, st.fields, self.rng2)
            return Walker(self.w, self.h, grid, True, st.flow.wiggle or 1, self.fields.res)
        return Walker(self.w, self.h, np.zeros((1, 1)), False, 1.0, self.fields.res)

    def warn(self, msg: str) -> None:
        if len(self.warnings) < 50 and msg not in self.warnings:
            self.warnings.append(msg)

    def _warn_clip(self, st: PaintState) -> None:
        """Strokes are never clipped: p5.brush 2.2.2's ``clip(region)`` only returns the region (stroke.js), so
        the real p5.brush, and a model's exported sketch, never clip; a stroke under one says so."""
        if st.clip:
            self.warn("clip: p5.brush 2.2.2 does not clip (its clip() is a no-op); strokes are not clipped")

    # ---------------------------------------------------------------- strokes

    def line(self, st: PaintState, x1, y1, x2, y2, brush=None, color=None, weight=None, walker=None) -> None:
        ends = np.array([[x1, y1, x2, y2]], np.float64)
        self._straight(st, line_rows(ends), brush or st.stroke.brush, color or st.stroke.color,
                       st.stroke.weight if weight is None else weight, False, walker)

    def _straight(self, st, rows, brush, color, weight, jitter, walker=None, xf=None, empty_draws=False) -> None:
        """Straight strokes (rows x, y, length, heading; ``paint_lines``) in one compiled call: a line, a
        flowLine or a hatch's lines. The field is looked up (and generated if new) once a line has length, the
        stroke begins (``Compositor.begin``) once one takes a step, as for each line alone; the steps taken are
        charged to the budget, which refuses a batch that ran past it."""
        b = brush_params(brush, st.brushes, st.scale_of(brush))
        walks = bool((rows[:, 2] != 0.0).any())
        if walks:
            walker = walker or self.walker(st)
        elif walker is None:
            walker = Walker(self.w, self.h, np.zeros((1, 1)), False, 1.0, self.fields.res)  # walks nowhere
        if b.spacing > 0 and len(rows):  # the kernel's step count per line (JavaScript's Math.round), before it runs
            if len(rows) == 1:  # one line (most calls): no array arithmetic for one number
                n = max(math.floor(float(rows[0, 2]) / b.spacing + 0.5), 0)
            else:
                n = float(np.maximum(np.floor(rows[:, 2] / b.spacing + 0.5), 0.0).sum())
            self.budget.spend(self.used, "line_steps", n)
        if len(rows) and (empty_draws or (rows[:, 2] != 0).any()):  # each such row is a p5.brush draw(), which
            self.mix.begin(True, color)                                 # blends in its colour (a step or none)
            self._warn_clip(st)
        steps = paint_lines(self.mix.masks["brush"], self.mix.dirty["brush"], rows, b, weight, jitter, self.strokes,
                            walker, self.budget.steps - self.used.get("steps", 0), self.left, xf, empty_draws)
        self._stamped()
        self.budget.spend(self.used, "steps", steps)

    def _stamped(self) -> None:
        """Record what the strokes stamped (``stamp_budget``); refuse the program if a stroke ran past it."""
        stamps = int(self.budget.stamps - self.left[0])
        area = (self.budget.stroke_area * self.unit - self.left[1]) / self.unit
        self.budget.spend(self.used, "stamps", stamps - self.used.get("stamps", 0))
        self.budget.spend(self.used, "stroke_area", area - self.used.get("stroke_area", 0))

    def plot_draw(self, st: PaintState, plot: Plot, x: float, y: float, walker=None, brush=None, color=None,
                  weight=None, xf=None) -> None:
        if plot.origin is not None:
            x, y = plot.origin
        brush = brush or st.stroke.brush
        color = color or st.stroke.color
        weight = st.stroke.weight if weight is None else weight
        b = brush_params(brush, st.brushes, st.scale_of(brush))
        n = max(math.floor(plot.length / b.spacing + 0.5), 0)  # JavaScript's Math.round
        # (no step: p5.brush still draws the stroke's numbers, blends its colour in and puts a marker's tips down,
        # and whatever is painted after it depends on those numbers)
        wk = walker or self.walker(st)
        self.budget.spend(self.used, "steps", n)
        xs, ys, _, _, pang, ppres = wk.walk_plot(plot, x, y, b.spacing, n)
        path = Path(xs[:-1], ys[:-1], pang, ppres, float(plot.length), (xs[-1], ys[-1]))
        self.mix.begin(True, color)
        self._warn_clip(st)
        paint_stroke(self.mix.masks["brush"], self.mix.dirty["brush"], path, b, weight, self.strokes, left=self.left,
                     xf=xf, walker=wk)
        self._stamped()

    # ---------------------------------------------------------------- areas

    def wash(self, st: PaintState, verts: np.ndarray) -> None:
        if len(verts) < 3:
            self.warn("wash: shape has fewer than 3 vertices; not washed")
            return
        self.budget.spend(self.used, "wash_rows", _edge_rows(verts, self.h, self.rows))
        self.mix.begin(False, st.wash.color)
        a = min(st.wash.opacity / 255.0, 0.999)
        # p5.brush fills the path on the 2-D canvas, which antialiases: a rim pixel takes alpha times its area inside
        fill_polygon(self.mix.masks["fill"], np.ascontiguousarray(verts[:, 0]), np.ascontiguousarray(verts[:, 1]),
                     math.log(1 - a), 0, 0, self.mix.dirty["fill"])

    def fill(self, st: PaintState, verts: np.ndarray, frame: Frame | None = None) -> None:
        """``verts`` on the canvas, or with a ``frame`` in the shape's own coordinates (the fill is built there)."""
        if len(verts) < 3:
            self.warn("fill: shape has fewer than 3 vertices; not filled")
            return
        own, verts = verts, (verts if frame is None else frame.to_canvas(verts))
        mn, mx = verts.min(axis=0), verts.max(axis=0)
        if not np.all(np.isfinite(verts)):
            raise RenderError("fill: shape has non-finite coordinates")
        ext = float(max(mx[0] - mn[0], mx[1] - mn[1]))
        if ext < 0.5:
            self.warn("fill: shape has no area; not filled")
        # area the fill can reach, clipped to the canvas
        pad = ext * (0.6 + 1.5 * st.fill.bleed) + 4
        bw = max(0.0, min(self.w, mx[0] + pad) - max(0, mn[0] - pad))
        bh = max(0.0, min(self.h, mx[1] + pad) - max(0, mn[1] - pad))
        self.budget.spend(self.used, "fills", 1)
        self.budget.spend(self.used, "fill_vertices", len(verts))
        self.budget.spend(self.used, "fill_rows", _edge_rows(verts, self.h, self.rows))
        self.budget.spend(self.used, "fill_area", bw * bh / self.unit)
        # A fill with no area, or whose reach misses the canvas, paints nothing, but it is still run: p5.brush
        # fills it all the same, drawing from its random stream (and blending the pending mask), and every shape
        # after it paints with the numbers left. Skipping it moved the next shapes of a painting.
        if self.scratch is None:
            self.scratch = _scratch(self.h, self.w)
        self.mix.begin(False, st.fill.color)
        self.mix.blend(st.fill.color, last=True)
        paint_fill(self.mix.canvas, self.scratch, own, st.fill, rgb_of(st.fill.color),
                   self.brush_rng, self.pools, None if frame is None else frame.xf)
        self.mix.painted_fill()

    def hatch(self, st: PaintState, polys: list[np.ndarray], frame: Frame | None = None) -> None:
        """``polys`` on the canvas, or with a ``frame`` in the shape's own coordinates (hatched there, as p5.brush
        hatches a shape in its own axes, and the lines taken to the canvas)."""
        h = st.hatch
        rr = Uniform(self.brush_rng)  # hatching jitters and weighs its lines from p5.brush's stream
        self.budget.spend(self.used, "hatch_checks", scan_checks(polys, h.dist, h.angle))
        lines = hatch_lines(polys, h.dist, h.angle, h.options, rr)
        _refuse_endless_hatch(lines, h.dist)
        self.budget.spend(self.used, "hatch_lines", len(lines))
        if h.style is not None:
            brush, color, weight = h.style
        elif st.stroke.active and st.stroke.color:
            brush, color, weight = st.stroke.brush, st.stroke.color, st.stroke.weight
        elif len(lines):
            # p5.brush draws each hatch line with ``line``, which throws without a stroke: the sketch stops there
            raise RenderError("hatch: no brush or colour set for its lines (call set(brush, color), stroke(color) "
                              "or hatchStyle(brush, color) first)")
        else:
            return
        # each line is ``line``'s stroke, its weight jittered first when the hatch has its own style
        rows = line_rows(np.ascontiguousarray(lines[:, :4]))
        if frame is not None:  # each a line() in the shape's frame
            rows = frame.moved(rows)
        self._straight(st, rows, brush, color, weight, h.style is not None, xf=None if frame is None else frame.wxf)

    def mass(self, st: PaintState, polys: list[np.ndarray], is_array: bool = False) -> None:
        """p5.brush ``createMass``: its decisions from ``rng2`` and its hatch jitter and strokes from ``rng``, each
        in p5.brush's order, so a mass (and whatever is drawn after it) paints as in the browser."""
        m = st.mass
        if not m.brush or not m.color:
            self.warn("mass: no mass brush/colour set; not massed")
            return
        b = brush_params(m.brush, st.brushes, st.scale_of(m.brush))
        opts = m.options
        precision = 0.5 if opts.get("precision") is None else opts["precision"]
        strength = 1 if opts.get("strength") is None else opts["strength"]
        gradient = 0.1 if opts.get("gradient") is None else opts["gradient"]

        def rr2(lo: float = 0.0, hi: float = 1.0) -> float:
            return lo + self.rng2.random() * (hi - lo)

        layers = mass_layers(polys, b.scatter, rr2)
        hatch_dist = 1.6 * rr2(b.scatter * 0.65, b.scatter * 0.85) - 0.4 * gradient
        base = rr2(-90, 90)
        bias = pivot_bias(base, rr2)
        wk = self.walker(st, ("hand", 2 - precision))  # wiggle(): the hand field, generated from rng2 if new
        if opts.get("outline"):
            for p in polys:
                self._straight(st, _edges(p), m.brush, m.color, 1, False, wk)
        rr = Uniform(self.brush_rng)
        passes = [(0, 0.9, 0.0, 2 - 2 * precision)]
        if strength > 0.33:
            passes.append((1, 1.0, 20.0, 0.6 - 0.6 * precision))
        if strength > 0.66:
            passes.append((2, 0.8, 15.0, 0.6 - 0.6 * precision))
        if hatch_dist <= 0 and any(len(p) for p in layers[0]):
            # p5.brush scans its passes from the shape's top in steps of this spacing: at 0 or below the scan
            # never ends (measured in Chromium: the page hangs until its time limit), so nothing is painted there
            raise RenderError(f"mass: its hatch spacing comes out {hatch_dist:.3g} (1.6 x 0.65-0.85 x the "
                              f"{m.brush} brush's scatter {b.scatter:g}, less 0.4 x gradient {gradient:g}): at 0 or "
                              "below p5.brush never finishes the mass; use a brush with more scatter or a smaller "
                              "gradient")
        for k, scale, turn, rand in passes:
            ang = base + turn * rr2(-1, 1) if turn else base  # drawn after the pass before it
            hopts = {"gradient": gradient, "rand": rand, "continuous": not is_array}
            self.budget.spend(self.used, "hatch_checks", scan_checks(layers[k], hatch_dist * scale, ang))
            lines = hatch_lines(layers[k], hatch_dist * scale, ang, hopts, rr)
            _refuse_endless_hatch(lines, hatch_dist * scale)
            # each line's arcs are tested against every vertex of the shape
            self.budget.spend(self.used, "mass_checks", len(lines) * sum(len(p) for p in layers[k]))
            arcs = mass_arcs(layers[k], is_array, lines, bias, self.rng2)
            self.budget.spend(self.used, "hatch_lines", len(arcs))
            # each arc is a stroke of the mass brush (``plot_draw``'s work), all of them in one compiled call
            steps = arc_steps(arcs, b.spacing)
            if arc_strokes(arcs) == 0:  # (arcs of no step are still strokes: p5.brush draws their numbers)
                continue
            self.budget.spend(self.used, "steps", steps)
            self.mix.begin(True, m.color)
            self._warn_clip(st)
            paint_arcs(self.mix.masks["brush"], self.mix.dirty["brush"], arcs, b, 1, self.strokes, wk, self.left)
            self._stamped()

    # ---------------------------------------------------------------- shapes

    def show_plot(self, st: PaintState, plot: Plot, x: float, y: float, frame: Frame | None = None) -> None:
        """p5.brush ``Plot.show``: wash, fill, mass, hatch, then stroke. With a ``frame`` the plot, x and y are in its
        walk coordinates (own plus the move)."""
        if plot.origin is not None:
            x, y = plot.origin
        if st.fill.active and st.fill.color and math.floor(plot.length + 0.5) <= 0:
            # p5.brush walks the outline in 1 px steps for its vertices (``genPol``): under half a pixel long
            # there are none, and its fill reads the first (measured in Chromium: "Cannot read properties of
            # undefined (reading 'x')", the sketch's error; a circle of radius 0.07 throws, 0.08 paints)
            raise RenderError(f"fill: the shape's outline is {plot.length:.3g} long, under the half pixel p5.brush "
                              "needs for one vertex: its fill throws there (a circle needs a radius of 0.08 or more)")
        if plot.length <= 0:
            self.warn("shape has zero length; nothing painted")
            if st.stroke.active and st.stroke.color:  # no step, but p5.brush draws its stroke's numbers all the same
                self.plot_draw(st, plot, x, y, xf=None if frame is None else frame.wxf)
            return

        def canvas(v: np.ndarray) -> np.ndarray:
            return v if frame is None else frame.to_canvas(frame.own(v))

        def own(v: np.ndarray) -> np.ndarray:
            return v if frame is None else frame.own(v)

        wk = None
        need = st.wash.active or st.fill.active or st.mass.active or st.hatch.active
        if need:
            wk = self.walker(st)
            # the walk is as long as the shape in its own coordinates (under a frame's small scale, far longer
            # than on the canvas: 360,000 steps for a 9 px rect at scale 1e-4)
            self.budget.spend(self.used, "vertices", plot.length)
        if st.wash.active and st.wash.color:
            self.wash(st, canvas(wk.gen_pol(plot, x, y, 0, self.rng2)))
        if st.fill.active and st.fill.color:
            b = st.fill.bleed
            side = 0.0 if b < 0.06 else min(max(0.2 + (b / 0.6) * 0.4, 0.2), 0.6)
            self.fill(st, own(wk.gen_pol(plot, x, y, side, self.rng2)), frame)
        if st.mass.active:
            v = canvas(wk.gen_pol(plot, x, y, 0.15, self.rng2))
            if len(v) >= 3:
                self.mass(st, [v])
        if st.hatch.active:
            v = own(wk.gen_pol(plot, x, y, 0.3, self.rng2))
            if len(v) >= 3:
                self.hatch(st, [v], frame)
        if st.stroke.active and st.stroke.color:
            self.plot_draw(st, plot, x, y, xf=None if frame is None else frame.wxf)

    def show_polygon(self, st: PaintState, pts: list, frame: Frame | None = None) -> None:
        """p5.brush ``Polygon.show``: the raw vertices, no field (with a ``frame``: its own coordinates)."""
        own = None
        if frame is not None:
            own = np.asarray([[p[0], p[1]] for p in pts], np.float64)
            pts = frame.canvas(pts)
        v = np.asarray([[p[0], p[1]] for p in pts], np.float64)
        self.budget.spend(self.used, "vertices", len(v))
        if st.wash.active and st.wash.color:
            self.wash(st, v)
        if st.fill.active and st.fill.color:
            self.fill(st, v if own is None else own, frame)
        if st.mass.active:
            self.mass(st, [v])
        if st.hatch.active:
            self.hatch(st, [v] if own is None else [own], frame)
        if st.stroke.active and st.stroke.color:
            if frame is None:
                self._straight(st, _edges(v), st.stroke.brush, st.stroke.color, st.stroke.weight, False)
            else:  # each side a line() in the frame
                self._straight(st, frame.moved(_edges(own)), st.stroke.brush, st.stroke.color, st.stroke.weight,
                               False, xf=frame.wxf)

    def _show_outline(self, st: PaintState, verts: list, curvature: float, closed: bool) -> None:
        """A shape through its vertices (closed: the first repeated last), in its frame if it has one."""
        if st.frame is None:
            self.show_plot(st, spline_plot(verts, curvature, closed), verts[0][0], verts[0][1])
            return
        fr = Frame(st.frame)
        wv = fr.walk(verts)
        self.show_plot(st, spline_plot(wv, curvature, closed), wv[0][0], wv[0][1], fr)

    # ---------------------------------------------------------------- dispatch

    def paint(self, op: DrawOp) -> None:
        self.budget.spend(self.used, "ops", 1)
        st, c = op.state, op.command
        m, a = c.method, c.args
        if m == "background":
            # it writes the whole canvas, an eighth of a composite's cost a pixel (0.05 against 0.4 ms at 600 px):
            # 20,000 of them, 10 ms each on a 4096 px canvas, were bounded only by the op count
            self.mix.charge(self.w * self.h / 8.0)
            paint_background(self.mix.canvas, rgb_of(a[0]))
        elif m == "line":
            if st.frame is None:
                self.line(st, *a[:4])
            else:  # a line() in its frame
                fr = Frame(st.frame)
                self._straight(st, fr.moved(line_rows(np.array([a[:4]], np.float64))), st.stroke.brush,
                               st.stroke.color, st.stroke.weight, False, xf=fr.wxf)
        elif m == "flowLine":
            x, y, length, d = a
            fr = None if st.frame is None else Frame(st.frame)
            rows = np.array([[x, y, length, d]], np.float64)
            # (of length 0 too: p5.brush draws it with no step, and its stroke's numbers and blend are spent)
            self._straight(st, rows if fr is None else fr.moved(rows), st.stroke.brush, st.stroke.color,
                           st.stroke.weight, False, xf=None if fr is None else fr.wxf, empty_draws=True)
        elif m == "endStroke":
            g = op.geometry
            p = Plot(g["type"])
            for ang, ln, pr in g["segments"]:
                p.add(ang, ln, pr, degrees=False)
            if not g["segments"]:
                # p5.brush draws it with no step all the same (its numbers spent, as a flowLine of length 0)
                self.warn("endStroke: stroke has no segments; nothing painted")
            p.end(a[0], a[1], degrees=False)
            if st.stroke.active and st.stroke.color:
                if st.frame is None:
                    self.plot_draw(st, p, g["x"], g["y"])
                else:
                    fr = Frame(st.frame)
                    (x, y), = fr.walk([[g["x"], g["y"]]])
                    self.plot_draw(st, p, x, y, xf=fr.wxf)
            else:
                self.warn("endStroke: no stroke colour set; nothing painted")
        elif m == "spline":
            if st.frame is None:
                p = spline_plot(a[0], a[1], False)
                self.show_plot(st, p, a[0][0][0], a[0][0][1])
            else:
                fr = Frame(st.frame)
                wv = fr.walk(a[0])
                self.show_plot(st, spline_plot(wv, a[1], False), wv[0][0], wv[0][1], fr)
        elif m == "endShape":
            g = op.geometry
            verts = [list(v) for v in g["vertices"]]
            if g["closed"]:
                verts.append(list(verts[0]))
            self._show_outline(st, verts, g["curvature"], g["closed"])
        elif m == "rect":
            x, y, w, h, mode = a
            if mode == "center":
                x, y = x - w / 2, y - h / 2
            # (a side of 0 is drawn as p5.brush draws it: its outline is walked like any other, so a 0 x 80 rect
            # strokes a line and fills a sliver, and a 0 x 0 one has no outline, whose fill throws there)
            self._show_outline(st, [[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]], 0, True)
        elif m == "circle":
            x, y, r, irr = a
            if st.frame is None:
                p, sx, sy = circle_plot(x, y, r, irr, self.rng2.random)
                self.show_plot(st, p, sx, sy)
            else:
                fr = Frame(st.frame)
                (wx, wy), = fr.walk([[x, y]])
                self.show_plot(st, *circle_plot(wx, wy, r, irr, self.rng2.random), fr)
        elif m == "arc":
            fr = None if st.frame is None else Frame(st.frame)
            (x, y), = [a[:2]] if fr is None else fr.walk([a[:2]])
            res = arc_plot(x, y, *a[2:5])
            if res is None:
                self.warn("arc: zero sweep; nothing painted")
            elif st.stroke.active and st.stroke.color:
                self.plot_draw(st, res[0], res[1], res[2], xf=None if fr is None else fr.wxf)
        elif m == "polygon":
            if st.frame is None:
                self.show_polygon(st, a[0])
            else:
                fr = Frame(st.frame)
                self.show_polygon(st, a[0], fr)
        elif m == "hatchArray":
            fr = None if st.frame is None else Frame(st.frame)
            self.hatch(st, [np.asarray([[q[0], q[1]] for q in p], np.float64) for p in a[0]], fr)
        elif m == "massArray":
            self.mass(st, [np.asarray([[q[0], q[1]] for q in p], np.float64) for p in a[0]], is_array=True)


def render_full(program: Program, *, size: int | None = None, seed: int | None = None,
                budget: Budget | None = None) -> RenderResult:
    """Render and also return warnings (degenerate shapes skipped) and work counters."""
    if not isinstance(program, Program):
        raise TypeError(f"render: expected a Program, got {type(program).__name__}")
    w, h = program.width, program.height
    cmds = program.commands
    size = render_size(size)  # before any work: a size past the bound is refused, not allocated
    if w * h > MAX_PIXELS:
        raise RenderError(f"render: canvas {w}x{h} is larger than {MAX_PIXELS} pixels")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ValueError(f"render: seed must be an integer, got {seed!r}")  # NaN painted as some other seed
    seed = seed if seed is not None else (program.seed if program.seed is not None else 0)
    budget = budget or Budget()
    precheck(cmds, budget.ops, budget.fills)
    painter = _Painter(w, h, (255, 255, 255), seed, budget)
    state = PaintState()
    for i, c in enumerate(cmds):
        if c.method == "seed":
            painter.reseed(c.args[0])
        elif c.method == "noiseSeed":
            painter.renoise(c.args[0])
        try:
            op = state.apply(c)
        except CommandError as e:
            raise RenderError(f"command {i}: {e}") from None
        if c.method in ("field", "refreshField", "wiggle"):
            painter.field_command(state, c.method)
        if op is not None:
            painter.paint(op)
    img = resample(painter.mix.finish(), size)  # the program's own canvas, resampled (``resample``)
    return RenderResult(img, painter.warnings, dict(painter.used))


def render(program: Program, *, size: int | None = None, seed: int | None = None) -> np.ndarray:
    """Render ``program`` to an H x W x 3 uint8 image (``size``: its canvas resampled to size x size);
    deterministic."""
    return render_full(program, size=size, seed=seed).image
