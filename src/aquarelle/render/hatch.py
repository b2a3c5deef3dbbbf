"""Hatching and massing, after p5.brush 2.2.2's ``hatch/hatch.js`` and ``hatch/mass.js``.

``hatch_lines`` scans the polygons with parallel lines ``dist`` apart at
``angle`` (optionally widening by ``gradient``, jittered by ``rand``, joined
end to end when ``continuous``); the renderer strokes each with the hatch
brush. ``mass_layers``, ``pivot_bias`` and ``mass_arcs`` build p5.brush's dense
scribble: up to three jittered hatch passes whose lines become arcs bowed around
a pivot outside the shape, drawing p5.brush's ``rng2`` numbers in its order.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import njit
from .brush_random import dist, draw, js_hypot, rr
from .geometry import _calc_angle, _norm


def _flat(polys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The polygons as the compiled scans take them: all x, all y, and where each polygon starts (polygon k is
    [starts[k], starts[k + 1]))."""
    polys = [np.asarray(p, np.float64).reshape(-1, 2) for p in polys]
    flat = np.concatenate(polys)
    starts = np.cumsum([0] + [len(p) for p in polys]).astype(np.int64)
    return np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1]), starts


#: The most lines one hatch scan makes, the render budget's ``hatch_lines``: p5.brush draws each as a stroke, and
#: long before this many (hatch(0.001) over a 100 px circle makes 100,000) it runs past its time limit, so a scan
#: that reaches it is refused (``native``), not cut short (it was, at 20,000, and the spacing raised to 0.1
#: besides: a hatch p5.brush never finishes painted here)
MAX_HATCH_LINES = 100_000


def hatch_lines(polys: list[np.ndarray], dist: float, angle: float, options: dict, rng,
                max_lines: int = MAX_HATCH_LINES) -> np.ndarray:
    """p5.brush ``getHatchLines``: rows (x1, y1, x2, y2, is-connector 1.0/0.0) in drawing order, the
    polygons scanned with parallel lines ``dist`` apart at ``angle``, widening by ``gradient``,
    their ends jittered by ``rand`` from ``rng``'s stream (a ``Uniform``), joined end to end when
    ``continuous``. One compiled call (``_hatch_lines``)."""
    angle = _hatch_angle(angle)
    g = options.get("gradient") or 0
    gradient = min(max(1 + 0.1 * g, 1), 1.1) if g else 1
    if not polys:
        return np.zeros((0, 5))
    px, py, starts = _flat(polys)
    return _hatch_lines(px, py, starts, float(angle),
                        float(max(dist, 1e-12)), float(gradient), int(max_lines), float(options.get("rand") or 0),
                        float(dist), bool(options.get("continuous")), rng.st)


def _hatch_angle(angle: float) -> float:
    """A hatch's angle in [0, 180), by JavaScript remainders, as p5.brush normalises it."""
    return math.fmod(math.fmod(angle, 180) + 180, 180)


def scan_checks(polys: list[np.ndarray], dist: float, angle: float) -> float:
    """What ``hatch_lines``' scan will cost, before it runs: each scanline (``dist`` apart) across
    the shapes' extent at ``angle`` tests every edge. The scan stops at ``max_lines`` segments, but scanlines
    through the gap between far-apart shapes (a ``hatchArray``) make none: a small 9,990-vertex shape and a
    triangle 180,000 px away, hatched 1 px apart, scanned for 1.2 s and gave 5 lines. An upper bound (a
    ``gradient`` widens the steps)."""
    if not polys:
        return 0.0
    px, py, _ = _flat(polys)
    rad = _hatch_angle(angle) * math.pi / 180
    ry = px * math.sin(rad) + py * math.cos(rad)
    return (float(ry.max() - ry.min()) / max(dist, 1e-12) + 1.0) * px.shape[0]


@njit
def _scan(px, py, starts, angle, dist, gradient, max_lines):
    """p5.brush's ``scanlineHatch``: rows (y, x1, y1, x2, y2) ordered by (y, x1) (a stable sort, as
    ``sorted`` by that pair), y on the rotated scanline."""
    rad = (angle * math.pi) / 180  # as p5.brush's scanlineHatch rounds it
    ca = math.cos(rad)
    sa = math.sin(rad)
    n = px.shape[0]
    rx = np.empty(n)
    ry = np.empty(n)
    for i in range(n):
        rx[i] = px[i] * ca - py[i] * sa
        ry[i] = px[i] * sa + py[i] * ca
    ymin = math.inf
    ymax = -math.inf
    edges = np.empty((n, 4))
    ne = 0
    for k in range(starts.shape[0] - 1):
        a = starts[k]
        m = starts[k + 1] - a
        for i in range(m):
            ymin = min(ymin, ry[a + i])
            ymax = max(ymax, ry[a + i])
        for i in range(m):
            j = (i + 1) % m
            if ry[a + i] != ry[a + j]:
                edges[ne, 0] = rx[a + i]
                edges[ne, 1] = ry[a + i]
                edges[ne, 2] = rx[a + j]
                edges[ne, 3] = ry[a + j]
                ne += 1
    segs = np.empty((max(max_lines, 0) + ne, 5))
    ns = 0
    if ne == 0:
        return segs[:0]
    cx = np.empty(ne)
    y = ymin + dist * 0.5
    step = dist
    while y < ymax and ns < max_lines:
        nc = 0
        for i in range(ne):
            y1 = edges[i, 1]
            y2 = edges[i, 3]
            if (y1 <= y) != (y2 <= y):
                cx[nc] = edges[i, 0] + (y - y1) / (y2 - y1) * (edges[i, 2] - edges[i, 0])
                nc += 1
        xs = np.sort(cx[:nc])
        for i in range(0, nc - 1, 2):
            xi = xs[i]
            xj = xs[i + 1]
            segs[ns, 0] = y
            segs[ns, 1] = xi * ca + y * sa
            segs[ns, 2] = -xi * sa + y * ca
            segs[ns, 3] = xj * ca + y * sa
            segs[ns, 4] = -xj * sa + y * ca
            ns += 1
        y += step
        if gradient != 1.0:
            step *= gradient
    segs = segs[:ns]
    order = np.argsort(segs[:, 1], kind="mergesort")  # by (y, x1), stably: x1 first, then y
    order = order[np.argsort(segs[order, 0], kind="mergesort")]
    return segs[order]


@njit
def _hatch_lines(px, py, starts, angle, dist, gradient, max_lines, rand, jdist, cont, st):
    """``hatch_lines``: the scanned segments, ends jittered by ``rand`` (four draws from ``st`` per segment,
    made in p5.brush's order), every other one reversed and joined to the one before by a connector when
    ``cont`` (a connector runs from the previous row's second point: p5.brush joins to what it appended last)."""
    segs = _scan(px, py, starts, angle, dist, gradient, max_lines)
    out = np.empty((2 * segs.shape[0], 5))
    k = 0
    for j in range(segs.shape[0]):
        x1 = segs[j, 1]
        y1 = segs[j, 2]
        x2 = segs[j, 3]
        y2 = segs[j, 4]
        if rand != 0.0:
            x1 += 2 * rand * jdist * rr(st, -1.0, 1.0)
            y1 += 2 * rand * jdist * rr(st, -1.0, 1.0)
            x2 += 2 * rand * jdist * rr(st, -1.0, 1.0)
            y2 += 2 * rand * jdist * rr(st, -1.0, 1.0)
        if cont and j % 2 == 1:
            x1, y1, x2, y2 = x2, y2, x1, y1
        out[k, 0] = x1
        out[k, 1] = y1
        out[k, 2] = x2
        out[k, 3] = y2
        out[k, 4] = 0.0
        k += 1
        if j > 0 and cont:
            out[k, 0] = out[k - 2, 2]
            out[k, 1] = out[k - 2, 3]
            out[k, 2] = x1
            out[k, 3] = y1
            out[k, 4] = 1.0
            k += 1
    return out[:k].copy()


@njit
def _ring(px, py, x, y):
    inside = False
    n = px.shape[0]
    j = n - 1
    for i in range(n):
        xi, yi, xj, yj = px[i], py[i], px[j], py[j]
        dy = yj - yi if yj != yi else 1e-12
        if ((yi > y) != (yj > y)) and (x < (xj - xi) * (y - yi) / dy + xi):
            inside = not inside
        j = i
    return inside


def mass_layers(polys: list[np.ndarray], scatter: float, rr2) -> list[list[np.ndarray]]:
    """p5.brush ``getMassPolygons``: the shape and two copies shifted by up to min(2 x scatter, 5) px (four
    ``rng2`` draws, made even when the shift is 0)."""
    m = min(scatter * 2, 5)
    jit = [(rr2(-m, m), rr2(-m, m)) for _ in range(2)]
    return [polys] + [[p + np.array(j) for p in polys] for j in jit]


def pivot_bias(base_angle: float, rr2) -> tuple[int, int]:
    """p5.brush ``getPivotBias``: the diagonal the whole mass's arcs bow towards (one ``rng2`` draw)."""
    na = math.fmod(math.fmod(base_angle + 90, 180) + 180, 180) - 90
    if na >= 0:
        return (1, 1) if rr2() < 0.5 else (-1, -1)
    return (-1, 1) if rr2() < 0.5 else (1, -1)


def _bounds(px: np.ndarray, py: np.ndarray) -> tuple[float, float, float]:
    """Centre and diagonal of the bounding box of the polygons' points (``getPolygonBounds``)."""
    mnx, mny = px.min(), py.min()
    mxx, mxy = px.max(), py.max()
    return (mnx + mxx) / 2, (mny + mxy) / 2, dist(mnx, mny, mxx, mxy)


@njit
def _arc_fits_flat(px, py, starts, cx, cy, r, start, sweep):
    """Whether all seven sample points of the arc (``sweep`` degrees from ``start``) lie inside the polygons
    (even-odd across them), the polygons flattened into ``px``/``py`` with polygon k at [starts[k],
    starts[k + 1]): one compiled call per arc."""
    for ti in range(1, 8):
        a = (start + sweep * (ti * 0.125)) * math.pi / 180.0
        x = cx + r * math.cos(a)
        y = cy - r * math.sin(a)
        inside = False
        for k in range(starts.shape[0] - 1):
            if _ring(px[starts[k]:starts[k + 1]], py[starts[k]:starts[k + 1]], x, y):
                inside = not inside
        if not inside:
            return False
    return True


def mass_arcs(polys: list[np.ndarray], is_array: bool, lines: np.ndarray, bias: tuple[int, int], rng2) -> np.ndarray:
    """p5.brush ``drawMassArcs``: one mass pass's hatch lines as arcs, rows (cx, cy, r, start, end in degrees),
    bowed around an anchor outside the shape, with p5.brush's ``rng2`` draws in its order (the anchor's
    distance, then per line whether to split it and where). ``rng2`` is the render's ``Stream2``; the arcs are
    found in one compiled call (a mass has hundreds of lines, each tested against the shape twice)."""
    px, py, starts = _flat(polys)
    bx, by, size = _bounds(px, py)
    arcs, rng2.s = _mass_arcs(px, py, starts, float(bx), float(by), float(size), float(bias[0]), float(bias[1]),
                              bool(is_array), np.ascontiguousarray(lines, np.float64).reshape(-1, 5),
                              np.int64(rng2.s))
    rng2.s = int(rng2.s)
    return arcs


@njit
def _mass_arcs(px, py, starts, bx, by, size, biasx, biasy, is_array, lines, s):
    """``mass_arcs`` on the lines' rows (x1, y1, x2, y2, is-connector) from ``rng2``'s state ``s``; returns the
    arcs and the state after its draws."""
    s, u = draw(s, 0.6, 1.4)
    off = size * u
    ax = bx + biasx * off
    ay = by + biasy * off
    out = np.empty((2 * lines.shape[0], 5))
    m = 0
    part = np.empty((2, 4))
    for i in range(lines.shape[0]):
        x1 = lines[i, 0]
        y1 = lines[i, 1]
        x2 = lines[i, 2]
        y2 = lines[i, 3]
        nparts = 1
        part[0, 0] = x1
        part[0, 1] = y1
        part[0, 2] = x2
        part[0, 3] = y2
        if lines[i, 4] == 0.0:
            s, u = draw(s, 0.0, 1.0)
            if u < 0.35:  # splitSegment: an interrupted gesture
                s, t = draw(s, 0.35, 0.65)
                mx = x1 + (x2 - x1) * t
                my = y1 + (y2 - y1) * t
                dx = x2 - x1
                dy = y2 - y1
                ln = js_hypot(dx, dy)
                if ln == 0.0:
                    ln = 1.0
                s, g = draw(s, 0.04, 0.1)
                gap = g * ln
                gx = dx / ln * gap * 0.5
                gy = dy / ln * gap * 0.5
                part[0, 2] = mx - gx
                part[0, 3] = my - gy
                part[1, 0] = mx + gx
                part[1, 1] = my + gy
                part[1, 2] = x2
                part[1, 3] = y2
                nparts = 2
        for q in range(nparts):
            a1 = part[q, 0]
            b1 = part[q, 1]
            a2 = part[q, 2]
            b2 = part[q, 3]
            mx = (a1 + a2) / 2
            my = (b1 + b2) / 2
            dx = a2 - a1
            dy = b2 - b1
            ln = js_hypot(dx, dy)
            if ln == 0.0:
                continue
            nx = -dy / ln
            ny = dx / ln
            o = (ax - mx) * nx + (ay - my) * ny
            cx = mx + nx * o
            cy = my + ny * o
            if is_array:  # biasArrayMassCenter: short chords pulled towards their midpoint
                chord = js_hypot(a2 - a1, b2 - b1)
                sz = max(size, chord, 1.0)
                bias_k = 0.08 + (1.0 - min(1.0, chord / (sz * 0.42))) * 0.18
                cx = cx + (mx - cx) * bias_k
                cy = cy + (my - cy) * bias_k
            r = js_hypot(a1 - cx, b1 - cy)
            if r == 0.0:
                continue
            st = _calc_angle(cx, cy, a1, b1)
            en = _calc_angle(cx, cy, a2, b2)
            if _norm(en - st) > 180:
                st, en = en, st
            if _arc_fits_flat(px, py, starts, cx, cy, r, st, _norm(en - st)):  # sweeps as getArcSamplePoint's
                a0, a1 = st, en
            elif _arc_fits_flat(px, py, starts, cx, cy, r, en, _norm(st - en)):
                a0, a1 = en, st
            else:
                continue
            out[m, 0] = cx
            out[m, 1] = cy
            out[m, 2] = r
            out[m, 3] = a0
            out[m, 4] = a1
            m += 1
    return out[:m].copy(), s
