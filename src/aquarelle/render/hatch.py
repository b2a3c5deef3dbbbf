"""Hatching and massing, after p5.brush 2.2.2's ``hatch/hatch.js`` and ``hatch/mass.js``.

``hatch_lines`` scans the polygons with parallel lines ``dist`` apart at
``angle`` (optionally widening by ``gradient``, jittered by ``rand``, joined
end to end when ``continuous``); the renderer strokes each with the hatch
brush. ``mass_arcs`` builds p5.brush's dense scribble: up to three jittered
hatch passes whose lines become arcs bowed around a pivot outside the shape.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import njit


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


def _inside(polys: list[np.ndarray], x: float, y: float) -> bool:
    inside = False
    for p in polys:
        if _ring(p[:, 0], p[:, 1], float(x), float(y)):
            inside = not inside
    return inside


def mass_arcs(polys: list[np.ndarray], scatter: float, options: dict, rng: np.random.Generator,
              max_lines: int = 20000) -> tuple[list, list]:
    """p5.brush ``createMass``: returns (arcs as (cx, cy, r, start, end) degrees, outline polygons)."""
    precision = options.get("precision", 0.5)
    strength = options.get("strength", 1)
    gradient = options.get("gradient", 0.1) or 0
    max_j = min(scatter * 2, 5)
    jit = [(rng.uniform(-max_j, max_j), rng.uniform(-max_j, max_j)) for _ in range(2)] if max_j > 0 else [(0, 0)] * 2
    passes_polys = [polys] + [[p + np.array(j) for p in polys] for j in jit]
    hatch_dist = max(1.6 * rng.uniform(scatter * 0.65, scatter * 0.85) - 0.4 * gradient, 0.5)
    base = rng.uniform(-90, 90)
    na = ((base + 90) % 180 + 180) % 180 - 90
    if na >= 0:
        bias = (1, 1) if rng.random() < 0.5 else (-1, -1)
    else:
        bias = (-1, 1) if rng.random() < 0.5 else (1, -1)
    passes = [(passes_polys[0], hatch_dist * 0.9, base, 2 - 2 * precision)]
    if strength > 0.33:
        passes.append((passes_polys[1], hatch_dist, base + 20 * rng.uniform(-1, 1), 0.6 - 0.6 * precision))
    if strength > 0.66:
        passes.append((passes_polys[2], hatch_dist * 0.8, base + 15 * rng.uniform(-1, 1), 0.6 - 0.6 * precision))
    arcs = []
    for pp, dist, ang, rand in passes:
        allp = np.concatenate(pp)
        mnx, mny = allp.min(axis=0)
        mxx, mxy = allp.max(axis=0)
        size = math.hypot(mxx - mnx, mxy - mny)
        off = size * rng.uniform(0.6, 1.4)
        ax, ay = (mnx + mxx) / 2 + bias[0] * off, (mny + mxy) / 2 + bias[1] * off
        opts = {"gradient": gradient, "rand": rand, "continuous": len(pp) == 1}
        for x1, y1, x2, y2, conn in hatch_lines(pp, dist, ang, opts, rng, max_lines):
            parts = [(x1, y1, x2, y2)]
            if not conn and rng.random() < 0.35:
                t = rng.uniform(0.35, 0.65)
                mx, my = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
                ln = math.hypot(x2 - x1, y2 - y1) or 1
                gap = rng.uniform(0.04, 0.1) * ln
                gx, gy = (x2 - x1) / ln * gap * 0.5, (y2 - y1) / ln * gap * 0.5
                parts = [(x1, y1, mx - gx, my - gy), (mx + gx, my + gy, x2, y2)]
            for a1, b1, a2, b2 in parts:
                dx, dy = a2 - a1, b2 - b1
                ln = math.hypot(dx, dy)
                if not ln:
                    continue
                nx, ny = -dy / ln, dx / ln
                mx, my = (a1 + a2) / 2, (b1 + b2) / 2
                o = (ax - mx) * nx + (ay - my) * ny
                cx, cy = mx + nx * o, my + ny * o
                r = math.hypot(cx - a1, cy - b1)
                if not r:
                    continue
                s = math.degrees(math.atan2(-(b1 - cy), a1 - cx)) % 360
                e = math.degrees(math.atan2(-(b2 - cy), a2 - cx)) % 360
                if ((e - s) % 360) > 180:
                    s, e = e, s
                for st, en in ((s, e), (e, s)):
                    sweep = (en - st) % 360
                    ok = all(_inside(pp, cx + r * math.cos(math.radians(st + sweep * t)),
                                     cy - r * math.sin(math.radians(st + sweep * t)))
                             for t in (0.125, 0.375, 0.625, 0.875))
                    if ok:
                        arcs.append((cx, cy, r, st, en))
                        break
    outline = polys if options.get("outline") else []
    return arcs, outline
