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
from .brush_random import dist, draw, js_hypot
from .geometry import _calc_angle, _norm


def _scan(polys: list[np.ndarray], angle: float, dist: float, gradient: float, max_lines: int) -> list[tuple]:
    rad = (angle * math.pi) / 180  # as p5.brush's scanlineHatch rounds it
    ca, sa = math.cos(rad), math.sin(rad)
    edges = []
    ymin, ymax = math.inf, -math.inf
    for p in polys:
        rx = p[:, 0] * ca - p[:, 1] * sa
        ry = p[:, 0] * sa + p[:, 1] * ca
        ymin, ymax = min(ymin, ry.min()), max(ymax, ry.max())
        n = len(p)
        for i in range(n):
            j = (i + 1) % n
            if ry[i] != ry[j]:
                edges.append((rx[i], ry[i], rx[j], ry[j]))
    if not edges:
        return []
    e = np.asarray(edges)
    segs = []
    y = ymin + dist * 0.5
    step = dist
    while y < ymax and len(segs) < max_lines:
        y1, y2 = e[:, 1], e[:, 3]
        hit = (y1 <= y) != (y2 <= y)
        if hit.any():
            h = e[hit]
            cx = np.sort(h[:, 0] + (y - h[:, 1]) / (h[:, 3] - h[:, 1]) * (h[:, 2] - h[:, 0]))
            for i in range(0, len(cx) - 1, 2):
                xi, xj = cx[i], cx[i + 1]
                segs.append((y, xi * ca + y * sa, -xi * sa + y * ca, xj * ca + y * sa, -xj * sa + y * ca))
        y += step
        if gradient != 1:
            step *= gradient
    segs.sort(key=lambda s: (s[0], s[1]))
    return segs


def hatch_lines(polys: list[np.ndarray], dist: float, angle: float, options: dict, rng,
                max_lines: int = 20000) -> list[tuple[float, float, float, float, bool]]:
    """p5.brush ``getHatchLines``: (x1, y1, x2, y2, is_connector) in drawing order."""
    angle = math.fmod(math.fmod(angle, 180) + 180, 180)  # JavaScript remainders, as p5.brush normalises it
    g = options.get("gradient") or 0
    gradient = min(max(1 + 0.1 * g, 1), 1.1) if g else 1
    segs = _scan(polys, angle, max(dist, 0.1), gradient, max_lines)
    r = options.get("rand") or 0
    cont = bool(options.get("continuous"))
    lines: list = []
    for j, s in enumerate(segs):
        x1, y1, x2, y2 = s[1:]
        if r:
            x1 += 2 * r * dist * rng.uniform(-1, 1)
            y1 += 2 * r * dist * rng.uniform(-1, 1)
            x2 += 2 * r * dist * rng.uniform(-1, 1)
            y2 += 2 * r * dist * rng.uniform(-1, 1)
        ln = (x2, y2, x1, y1, False) if (cont and j % 2 == 1) else (x1, y1, x2, y2, False)
        lines.append(ln)
        if j > 0 and cont:
            prev = lines[-2]
            lines.append((prev[2], prev[3], ln[0], ln[1], True))
    return lines


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


def _bounds(allp: np.ndarray) -> tuple[float, float, float]:
    """Centre and diagonal of the bounding box of the polygons' points ``allp`` (``getPolygonBounds``)."""
    mnx, mny = allp.min(axis=0)
    mxx, mxy = allp.max(axis=0)
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


def mass_arcs(polys: list[np.ndarray], is_array: bool, lines: list, bias: tuple[int, int], rng2) -> np.ndarray:
    """p5.brush ``drawMassArcs``: one mass pass's hatch lines as arcs, rows (cx, cy, r, start, end in degrees),
    bowed around an anchor outside the shape, with p5.brush's ``rng2`` draws in its order (the anchor's
    distance, then per line whether to split it and where). ``rng2`` is the render's ``Stream2``; the arcs are
    found in one compiled call (a mass has hundreds of lines, each tested against the shape twice)."""
    flat = np.concatenate(polys)
    bx, by, size = _bounds(flat)
    px, py = np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1])
    starts = np.cumsum([0] + [len(p) for p in polys]).astype(np.int64)
    ln = np.asarray([(x1, y1, x2, y2, 1.0 if conn else 0.0) for x1, y1, x2, y2, conn in lines],
                    np.float64).reshape(-1, 5)
    arcs, rng2.s = _mass_arcs(px, py, starts, float(bx), float(by), float(size), float(bias[0]), float(bias[1]),
                              bool(is_array), ln, np.int64(rng2.s))
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
