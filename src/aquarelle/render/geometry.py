"""Paths as p5.brush builds them: plots (angle/length segments), splines, circles, arcs, and walking them.

A ``Plot`` is p5.brush's path: segment lengths with an angle at each joint
(degrees, 90 = up on screen) and a pressure per joint; "curve" plots
interpolate the angle along a segment (arcs), "segments" plots keep it. Shapes
become plots (``spline_plot`` ports ``_createSpline``), and plots become
polygons (``gen_pol``) or brush paths (``walk``) by stepping along them while
the active vector field bends the heading, exactly as p5.brush's Position does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field as dfield
from itertools import accumulate

import numpy as np

from ._jit import njit, njit_inline
from .brush_random import LUT_COS, LUT_SIN, cos_deg, js_hypot, lut_index, sin_deg


@njit
def _norm(a):
    """((a % 360) + 360) % 360 with JavaScript's remainder, as p5.brush's Plot normalises angles (compiled, for
    the arcs and masses built in compiled code; ``np.fmod`` is C's ``fmod``, as ``math.fmod`` is)."""
    return np.fmod(np.fmod(a, 360.0) + 360.0, 360.0)


@njit
def _calc_angle(x1, y1, x2, y2):
    a = np.fmod(math.atan2(-(y2 - y1), x2 - x1) * 180 / math.pi, 360.0)  # p5.brush's calcAngle, op for op
    return a if a >= 0 else a + 360


def calc_angle(x1: float, y1: float, x2: float, y2: float) -> float:
    """Angle from p1 to p2 in degrees, counter-clockwise on screen (y down), in [0, 360). (Compiled code calls
    ``_calc_angle``; from Python the arguments are made floats first, so integer arguments share the float
    compilation and never meet numba's int64 conversion.)"""
    return _calc_angle(float(x1), float(y1), float(x2), float(y2))


@dataclass
class Plot:
    type: str = "curve"
    segments: list = dfield(default_factory=list)
    angles: list = dfield(default_factory=list)
    pres: list = dfield(default_factory=list)
    cum: list = dfield(default_factory=list)
    length: float = 0.0
    origin: tuple | None = None
    #: the segment index p5.brush's Plot keeps between walks (``this.index``): a walk that stalls keeps it
    index: int = 0

    def add(self, a: float, length: float, pres: float = 1.0, degrees: bool = True) -> None:
        self.extend([length], [_norm(float(a)) if degrees else a], [pres])

    def extend(self, lengths: list, angles: list, pres: list) -> None:
        """``add`` for many segments at once (angles normalised degrees): each segment's angle holds at its
        start and, until the next segment replaces it, at its end."""
        if not lengths:
            return
        if self.angles:
            self.angles.pop()
        self.angles += angles
        self.angles.append(angles[-1])
        self.pres += pres
        run = list(accumulate(lengths, initial=self.length))  # summed in order, as one add after another
        self.cum += run[:-1]
        self.segments += lengths
        self.length = run[-1]

    def end(self, a: float, pres: float = 1.0, degrees: bool = True) -> None:
        a = _norm(float(a)) if degrees else a
        if self.angles:
            self.angles[-1] = a
        else:
            self.angles.append(a)
        self.pres.append(pres)

    def arrays(self):
        """(cum, seglen, angles, pres) as float64 arrays for the compiled walkers."""
        n = len(self.segments)
        ang = list(self.angles) + [self.angles[-1] if self.angles else 0.0] * max(0, n + 1 - len(self.angles))
        pr = list(self.pres) + [self.pres[-1] if self.pres else 1.0] * max(0, n + 1 - len(self.pres))
        return (np.asarray(self.cum, np.float64), np.asarray(self.segments, np.float64),
                np.asarray(ang[: n + 1], np.float64), np.asarray(pr[: n + 1], np.float64))


def spline_plot(points: list, curvature: float = 0.5, close: bool = False) -> Plot:
    """Port of p5.brush's ``_createSpline``: straight runs joined by circular arcs sized by curvature.

    The maths runs compiled (``_spline``); a painting builds hundreds of these, and in Python their table
    cos/sin and angle calls were 2-5% of a painting's render."""
    n = len(points)
    pts = np.empty((3, n))
    for i, q in enumerate(points):
        pts[0, i] = float(q[0])
        pts[1, i] = float(q[1])
        pts[2, i] = float(q[2]) if len(q) > 2 else 1.0
    close = bool(close) and curvature != 0
    if close:  # the spline runs on past its first point to close the curve
        pts = np.concatenate([pts, pts[:, 1:2]], axis=1)
    p = Plot("segments" if curvature == 0 else "curve")
    if n == 0:
        return p
    seg, ang, pres, end, origin = _spline(pts, float(curvature), close)
    p.extend(seg.tolist(), ang.tolist(), pres.tolist())
    if end[0] != 0.0:
        p.end(float(end[1]), float(end[2]), degrees=False)
    p.origin = (float(origin[0]), float(origin[1]))
    return p


@njit
def _spline(pts, curvature, close):
    """``spline_plot``'s segments: (lengths, joint angles (normalised), pressures, (ended, end angle, end
    pressure), origin), from rows x, y, pressure of the points."""
    n = pts.shape[1]
    xs = pts[0]
    ys = pts[1]
    ps = pts[2]
    cap = 3 * n + 1
    seg = np.empty(cap)
    ang = np.empty(cap)
    pres = np.empty(cap)
    end = np.zeros(3)
    m = 0
    done = 0.0
    pep = 0.0
    pep2 = 0.0
    tepx = xs[0]
    tepy = ys[0]
    for i in range(n - 1):
        if curvature > 0 and i < n - 2:
            x1, y1, x2, y2, x3, y3 = xs[i], ys[i], xs[i + 1], ys[i + 1], xs[i + 2], ys[i + 2]
            d1 = js_hypot(x2 - x1, y2 - y1)
            d2 = js_hypot(x3 - x2, y3 - y2)
            a1 = _calc_angle(x1, y1, x2, y2)
            a2 = _calc_angle(x2, y2, x3, y3)
            adj = curvature * min(d1, d2, 0.5 * min(d1, d2))
            dmax = max(d1, d2)
            s1 = d1 - adj
            s2 = d2 - adj
            if np.floor(a1) == np.floor(a2):
                temp = (0.0 if i == 0 else d1 - done) if close else d1 - done
                temp2 = (0.0 if i == 0 else d2 - pep2) if close else d2
                seg[m], ang[m], pres[m] = temp, a1, ps[i]
                m += 1
                if i == n - 3:
                    seg[m], ang[m], pres[m] = temp2, a2, ps[i + 1]
                    m += 1
                done = 0.0
                if i == 0:
                    pep, pep2, tepx, tepy = d1, adj, xs[1], ys[1]
            else:
                # p5.brush's table cos/sin, so the arcs (and every vertex walked from them) come out the same
                q1x = x2 - adj * LUT_COS[lut_index(-a1)]
                q1y = y2 - adj * LUT_SIN[lut_index(-a1)]
                q2x = q1x + dmax * LUT_COS[lut_index(-a1 + 90)]
                q2y = q1y + dmax * LUT_SIN[lut_index(-a1 + 90)]
                q3x = x2 + adj * LUT_COS[lut_index(-a2)]
                q3y = y2 + adj * LUT_SIN[lut_index(-a2)]
                q4x = q3x + dmax * LUT_COS[lut_index(-a2 + 90)]
                q4y = q3y + dmax * LUT_SIN[lut_index(-a2 + 90)]
                arc_len = 0.0
                # the two normals' intersection: the arc's centre
                dx1, dy1 = q2x - q1x, q2y - q1y
                dx2, dy2 = q4x - q3x, q4y - q3y
                den = dy2 * dx1 - dx2 * dy1
                if den != 0:
                    ua = (dx2 * (q1y - q3y) - dy2 * (q1x - q3x)) / den
                    radius = js_hypot(q1x + ua * dx1 - q1x, q1y + ua * dy1 - q1y)
                    half = js_hypot(q3x - q1x, q3y - q1y) / 2
                    if radius > 0 and half <= radius:
                        arc_angle = 2 * math.asin(half / radius) * (180 / math.pi)
                        arc_len = 2 * math.pi * radius * arc_angle / 360
                temp = (0.0 if i == 0 else s1 - done) if close else s1 - done
                temp2 = ((pep - adj) if close else s2) if i == n - 3 else 0.0
                seg[m], ang[m], pres[m] = temp, a1, ps[i]
                seg[m + 1], ang[m + 1], pres[m + 1] = arc_len, a1, ps[i]
                seg[m + 2], ang[m + 2], pres[m + 2] = temp2, a2, ps[i + 1]
                m += 3
                done = adj
                if i == 0:
                    pep, pep2, tepx, tepy = s1, adj, q1x, q1y
            if i == n - 3:
                end[0], end[1], end[2] = 1.0, _norm(a2), ps[i + 1]
        elif curvature == 0:
            d = js_hypot(xs[i + 1] - xs[i], ys[i + 1] - ys[i])
            a = _calc_angle(xs[i], ys[i], xs[i + 1], ys[i + 1])
            seg[m], ang[m], pres[m] = d, a, ps[i + 1]
            m += 1
            if i == n - 2:
                end[0], end[1], end[2] = 1.0, _norm(a), 1.0
    for k in range(m):
        ang[k] = _norm(ang[k])
    origin = np.array([tepx, tepy]) if close else np.array([xs[0], ys[0]])
    return seg[:m], ang[:m], pres[:m], end, origin


def circle_plot(x: float, y: float, radius: float, irregularity: float, rand2) -> tuple[Plot, float, float]:
    """p5.brush ``circle``: four quarter-arc segments (randomly stretched when irregular); returns plot and start."""
    p = Plot("curve")
    arc_len = math.pi * radius
    off = rand2() * 360
    r = irregularity

    def rf():
        return 1 + r * 0.2 * rand2() if r else 1

    for i in range(4):
        ang = -90 * i + off
        p.add(ang * rf(), (arc_len / 2) * rf(), 1)
    if r:
        ra = r * math.trunc(-5 + rand2() * 10)
        p.add(off, abs(ra) * (math.pi / 180) * radius, 1)
        p.end(ra + off, 1)
    else:
        p.end(off, 1)
    sx = x - radius * sin_deg(off)
    sy = y - radius * cos_deg(-off)
    return p, sx, sy


@njit
def arc_arrays(x, y, radius, start, end):
    """p5.brush's ``arc`` as plot arrays: (segments, cum, seg, ang, pres, length, start x, start y), segments 0
    for a zero sweep. Compiled, so a mass can turn its hundreds of arcs into strokes in one call; ``arc_plot``
    builds its ``Plot`` from the same numbers (segments of at most 90 degrees, the joint angles normalised as
    ``Plot.add`` does, lengths summed in its order)."""
    sweep = ((end - start) % 360.0 + 360.0) % 360.0
    nseg = 0 if sweep == 0.0 else max(1, int(math.ceil(sweep / 90.0)))
    cum = np.empty(nseg)
    seg = np.empty(nseg)
    ang = np.empty(nseg + 1)
    pres = np.ones(nseg + 1)
    length = 0.0
    if nseg == 0:
        return 0, cum, seg, ang, pres, length, x, y
    ss = sweep / nseg
    alen = math.pi * radius * ss / 180.0
    for i in range(nseg):
        ang[i] = _norm(start + i * ss + 90.0)
        cum[i] = length
        seg[i] = alen
        length += alen
    ang[nseg] = _norm(start + sweep + 90.0)
    # the start point by p5.brush's table cos/sin, as its arc() places it
    li = lut_index(start)
    return nseg, cum, seg, ang, pres, length, x + radius * LUT_COS[li], y - radius * LUT_SIN[li]


def arc_plot(x: float, y: float, radius: float, start: float, end: float) -> tuple[Plot, float, float] | None:
    nseg, cum, seg, ang, pres, length, sx, sy = arc_arrays(float(x), float(y), float(radius), float(start),
                                                           float(end))
    if nseg == 0:
        return None
    p = Plot("curve", segments=seg.tolist(), angles=ang.tolist(), pres=pres.tolist(), cum=cum.tolist(),
             length=float(length))
    return p, float(sx), float(sy)


# --------------------------------------------------------------------------- walking


@njit
def _plot_index(cum, d):
    n = cum.shape[0]
    if n == 0:
        return 0
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if cum[mid] <= d:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit
def _curve_angle(a0, a1, t):
    """The heading a fraction ``t`` along a "curve" segment from joint angle a0 to a1, turning the short way."""
    if abs(a1 - a0) > 180.0:
        if a1 > a0:
            a1 = -(360.0 - a1)
        else:
            a0 = -(360.0 - a0)
    return a0 + t * (a1 - a0)


@njit_inline
def _field_cell(x, y, ncol, nrow, half_w, half_h, res):
    """The field cell p5.brush's ``Position`` is in at (x, y): (inside, column, row), (False, -1, -1) outside.

    Rounded as ``Math.round`` and tested as floats (numpy's floor stays a float; numba's math.floor is an
    integer): a NaN position (a turn by ``lut_index``'s NaN entry) is outside, as in p5.brush, and is never
    converted to an integer."""
    fcol = np.floor((x + half_w) / res + 0.5)
    frow = np.floor((y + half_h) / res + 0.5)
    if fcol >= 0.0 and frow >= 0.0 and fcol < ncol and frow < nrow:
        return True, int(fcol), int(frow)
    return False, -1, -1


@njit
def walk(x0, y0, nsteps, step, use_plot, const_dir, cum, seg, ang, pres, is_curve, length,
         fgrid, field_on, wiggle, res, width, height, ox=0.0, oy=0.0):
    """Step along a plot (or a constant heading) through the field.

    Returns positions before each step (xs, ys: nsteps + 1 entries, the last is the end),
    and per step the plot index, distance travelled, plot heading and plot pressure.
    Outside the field (or far off canvas without one) the walker stalls, as p5.brush's does.
    """
    xs = np.empty(nsteps + 1)
    ys = np.empty(nsteps + 1)
    idx = np.zeros(nsteps, np.int64)
    plotted = np.empty(nsteps)
    pang = np.empty(nsteps)
    ppres = np.ones(nsteps)
    x = x0
    y = y0
    d = 0.0
    ncol = fgrid.shape[0]
    nrow = fgrid.shape[1]
    half_w = 0.5 * width
    half_h = 0.5 * height
    i_last = 0
    fa = 0.0
    # the field cell the walker is in, as an open box of positions well inside it (empty: look the cell up)
    bx0 = 1.0
    bx1 = -1.0
    by0 = 1.0
    by1 = -1.0
    for k in range(nsteps):
        xs[k] = x
        ys[k] = y
        plotted[k] = d
        if use_plot:
            # distance only grows: scan forward from the last segment (p5.brush's calcIndex)
            nseg = cum.shape[0]
            while i_last + 1 < nseg and cum[i_last + 1] <= d:
                i_last += 1
            # plot heading and pressure here (inline: a helper taking the arrays pays their reference counts per step)
            if d > length or nseg == 0:
                a = ang[ang.shape[0] - 1]
                ppres[k] = pres[pres.shape[0] - 1]
            else:
                s = seg[i_last]
                t = 0.0 if s == 0.0 else (d - cum[i_last]) / s
                a = _curve_angle(ang[i_last], ang[i_last + 1], t) if is_curve else ang[i_last]
                ppres[k] = pres[i_last] if s == 0.0 else pres[i_last] + t * (pres[i_last + 1] - pres[i_last])
        else:
            a = const_dir
        idx[k] = i_last
        pang[k] = a
        # positions may be held in a frame shifted by (ox, oy) (see ``gen_pol``); these tests are on the canvas
        xc = x - ox
        yc = y - oy
        if field_on:
            # A walker takes several steps per cell. Testing the cached cell's box instead of dividing and rounding
            # takes the cell lookup off the chain from one position to the next (a mispredicted branch costs
            # less than that chain's division, rounding and two table loads: tree_mass 124 -> 101 ms)
            if xc > bx0 and xc < bx1 and yc > by0 and yc < by1:
                inside = True
            else:
                inside, col, row = _field_cell(xc, yc, ncol, nrow, half_w, half_h, res)
                if inside:
                    fa = fgrid[col, row] * wiggle
                    # positions that round to (col, row), less a margin far above the rounding error of either test
                    bx0 = (col - 0.5) * res - half_w + 1e-6
                    bx1 = (col + 0.5) * res - half_w - 1e-6
                    by0 = (row - 0.5) * res - half_h + 1e-6
                    by1 = (row + 0.5) * res - half_h - 1e-6
        else:
            inside = xc >= -half_w and xc <= width + half_w and yc >= -half_h and yc <= height + half_h
        if inside:
            # p5.brush steps with its 0.25-degree float32 tables (``cossin``), so do we: the same vertices
            li = lut_index(fa - a)
            cr = LUT_COS[li]
            sr = LUT_SIN[li]
            x += step * cr
            y += step * sr
        d += step
    xs[nsteps] = x
    ys[nsteps] = y
    return xs, ys, idx, plotted, pang, ppres


@njit_inline
def field_angle(x, y, field):
    """p5.brush's ``Position.angle()`` at (x, y): the field's angle there times the wiggle, 0 outside the field or
    with none on. ``field`` is (fgrid, field_on, wiggle, res, width, height), as ``walk`` takes them; the cell is
    found as ``walk`` finds it (positions in its frame)."""
    fgrid, field_on, wiggle, res, width, height = field
    if not field_on:
        return 0.0
    inside, col, row = _field_cell(x, y, fgrid.shape[0], fgrid.shape[1], 0.5 * width, 0.5 * height, res)
    return fgrid[col, row] * wiggle if inside else 0.0


@njit
def visible_steps(x, y, direction, step, n, reach, width, height):
    """Steps [k0, k1) of a straight line of n steps from (x, y) that can reach the canvas: a stamp within
    ``reach`` of it, before the walker stalls (p5.brush's walker stops once outside the canvas grown by half
    its size, and never moves from outside it). Far-off parts of a line are skipped; their random numbers are
    still drawn. Both ends are clamped in floats before they become integers, defensively: the command checks
    bound coordinates and weights (``MAX_COORD``), so a validated program stays far inside int64; a k0 clamped
    to n + 1 would still lie before the line meets the reach box, so nothing it places is seen."""
    dx = math.cos(math.radians(direction))
    dy = -math.sin(math.radians(direction))
    hw = 0.5 * width
    hh = 0.5 * height
    if not (-hw <= x <= width + hw and -hh <= y <= height + hh):
        return 0, 0  # p5.brush's walker never moves from outside its bounds
    _, texit, _ = _ray_box(x, y, dx, dy, -hw, -hh, width + hw, height + hh)
    v0, v1, hit = _ray_box(x, y, dx, dy, -reach, -reach, width + reach, height + reach)
    if not hit or v1 < v0:
        return 0, 0
    k0 = int(min(max(math.floor(max(v0, 0.0) / step) - 1.0, 0.0), n + 1.0))
    k1 = int(min(max(math.ceil(min(v1, texit) / step) + 2.0, -1.0), float(n)))  # below k0 means none
    return k0, k1


@njit
def _ray_box(x, y, dx, dy, ax, ay, bx, by):
    """The ray (x, y) + t (dx, dy) inside the box [ax, bx] x [ay, by]: (t0, t1, whether an axis it does not
    cross leaves it outside)."""
    t0 = -math.inf
    t1 = math.inf
    for k in range(2):
        p = x if k == 0 else y
        dp = dx if k == 0 else dy
        lo = ax if k == 0 else ay
        hi = bx if k == 0 else by
        if abs(dp) < 1e-12:
            if p < lo or p > hi:
                return 1.0, 0.0, False
        else:
            ta = (lo - p) / dp
            tb = (hi - p) / dp
            t0 = max(t0, min(ta, tb))
            t1 = min(t1, max(ta, tb))
    return t0, t1, True


@njit
def _select_vertices(xs, ys, idx, seg, side, rnd2):
    """``genPol``'s vertex choice over a walk in its frame (xs, ys: the start, then a position per step; x is
    p5.brush's x + width / 2, the canvas's left edge at 0 when no transform moves the shape). p5.brush keeps a
    step's position only when ``pos.x`` is truthy: a walker at x = 0 exactly or at NaN keeps none there and, as
    nothing was kept, neither restarts its side count nor advances its segment index."""
    n = idx.shape[0]
    out = np.empty((n, 2))
    k = 0
    pside = 0.0
    prev = 0
    for i in range(n):
        pside += 1.0
        j = idx[i]
        if side <= 0:
            maxs = 8.0
        else:
            maxs = max(seg[j] * side * (0.7 + 0.6 * rnd2[i]), 20.0)
        x = xs[i + 1]
        if (pside >= maxs or j >= prev) and x != 0.0 and x == x:
            out[k, 0] = x
            out[k, 1] = ys[i + 1]
            k += 1
            pside = 0.0
            if j >= prev:
                prev += 1
    return out[:k].copy()


@dataclass
class Walker:
    """The canvas and field a render walks in (p5.brush's Position context)."""

    width: int
    height: int
    fgrid: np.ndarray  # (cols, rows) degrees; an empty (1, 1) grid when no field is active
    field_on: bool
    wiggle: float
    res: float

    def walk_plot(self, plot: Plot, x: float, y: float, step: float, nsteps: int, ox: float = 0.0, oy: float = 0.0):
        cum, seg, ang, pres = plot.arrays()
        if cum.shape[0] == 0:
            cum, seg, ang, pres = np.zeros(1), np.zeros(1), np.zeros(2), np.ones(2)
        return walk(float(x), float(y), int(nsteps), float(step), True, 0.0, cum, seg, ang, pres,
                    plot.type == "curve", float(plot.length), self.fgrid, self.field_on, float(self.wiggle),
                    float(self.res), float(self.width), float(self.height), float(ox), float(oy))

    def walk_dir(self, x: float, y: float, direction: float, step: float, nsteps: int):
        z = np.zeros(1)
        return walk(float(x), float(y), int(nsteps), float(step), False, float(direction), z, z, np.zeros(2),
                    np.ones(2), False, 0.0, self.fgrid, self.field_on, float(self.wiggle), float(self.res),
                    float(self.width), float(self.height))

    def gen_pol(self, plot: Plot, x: float, y: float, side: float, rng) -> np.ndarray:
        """p5.brush ``Plot.genPol``: walk the plot in 1 px steps, keep a vertex every ~max(seg x side, 20) px."""
        nsteps = math.floor(plot.length + 0.5)  # Math.round
        if nsteps <= 0:
            return np.zeros((0, 2))
        # p5.brush walks from (x + W/2, y + H/2) and keeps pos - (W/2, H/2): the same frame, so a vertex on a
        # canvas edge rounds as it does there (whether it lies inside a shape decides draws later)
        hw, hh = 0.5 * self.width, 0.5 * self.height
        xs, ys, idx, plotted, _, _ = self.walk_plot(plot, x + hw, y + hh, 1.0, nsteps, hw, hh)
        # p5.brush reads the plot's segment index only as its walker's last step left it: a step taken outside
        # the canvas bounds (the walker stalls there for good) or past the plot's end looks nothing up, so from
        # that step on the index stays where it was (the plot's index from its last walk, if the very first
        # step stalls). Vertices, and the random draws of the fill they make, follow that index.
        live = ((xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1])) & (plotted <= plot.length)
        if not live.all():
            k = int(np.argmin(live))
            idx = idx.copy()
            idx[k:] = idx[k - 1] if k > 0 else plot.index
        plot.index = int(idx[-1])
        _, seg, _, _ = plot.arrays()
        r = rng.random(nsteps) if side > 0 else np.zeros(nsteps)
        v = _select_vertices(xs, ys, idx, seg, float(side), r)
        v[:, 0] -= hw
        v[:, 1] -= hh
        # a walker that turned by ``lut_index``'s NaN entry sits at NaN, where ``_select_vertices`` keeps nothing
        # (p5.brush's ``&& pos.x``); one at an infinity is left out here, as a canvas path ignores its ``lineTo``
        ok = np.isfinite(v).all(axis=1)
        return v if ok.all() else v[ok]


#: A frame, [a, b, c, d, e, f, s]: (x, y) -> (a x + c y + e, b x + d y + f), lengths times s (a similarity), as the
#: fill and stroke kernels take a shape's frame to the canvas; this one moves nothing.
NO_FRAME = np.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])


@njit_inline
def moves_nothing(xf):
    """Whether frame ``xf`` is the identity (its scale follows from a, b)."""
    return xf[0] == 1.0 and xf[1] == 0.0 and xf[2] == 0.0 and xf[3] == 1.0 and xf[4] == 0.0 and xf[5] == 0.0
