"""The watercolour fill, after p5.brush 2.2.2's ``fill/fill.js`` (Tyler Hobbs' layered-polygon method).

The shape's polygon is deformed by recursive midpoint displacement (``grow``:
each edge's midpoint pushed out along the edge normal by ~N(0.5, 0.2) x bleed
x edge length), trimmed (a run of vertices cut out and bridged) and scattered
into a sparse copy. Twenty layers of such polygons, each at ~2% alpha and each
outlined faintly (the border term), pile up in a mask; texture punches soft
holes in the mask at layers 0, 8, 16 and 19, and after each of those the mask
is blended into the canvas with the Kubelka-Munk mix. The mask is an 8-bit 2D
canvas in p5.brush whose source-over truncates (a 1/255 layer adds nothing to a
pixel already at 1/255), so we count the layers of each alpha class per pixel
and replay that arithmetic from tables. Everything per fill runs in one
compiled call: geometry, rasterisation (row-difference counts) and blending.
"""

from __future__ import annotations

import functools
import math
from collections import namedtuple

import numpy as np

from ._jit import njit, njit_inline, njit_vec
from ._jit import uidx as _u
from .brush_random import LUT_COS, LUT_SIN, POOL, advance, between, draw, draws, gauss_draw, js_hypot, lut_index, rr
from .geometry import NO_FRAME, moves_nothing
from .mix import LIN_LUT, Work, _blend, _padded, make_work
from .raster import MARK_EVERY, span_disc, span_polygon, span_triangle

GROW_MAX_VERTS = 2024


# A polygon is one (4, n) array: rows x, y, the bleed modifier m and the edge direction d (1.0 out, 0.0 in).
# One array per polygon, not four: a fill grows some 175 polygons, and numba counts references per array on
# every call and return (atomic increments, 13% of a small fill's time with four).


@njit
def _trim(p, f, st):
    n = p.shape[1]
    if f >= 1.0 or f < 0.0 or n <= 8:
        return p
    vx = p[0]
    vy = p[1]
    ntrim = int((1.0 - f) * n)
    s = int(n / 2.0 - ntrim / 2.0)
    te = s + ntrim
    i0 = (s - 1 + n) % n
    i1 = te % n
    evx = vx[i1] - vx[i0]
    evy = vy[i1] - vy[i0]
    elen = js_hypot(evx, evy)
    if s >= 2:
        si = int(rr(st, 0.0, s - 1.0))
    else:
        si = te if te < n - 1 else 0
    sj = (si + 1) % n
    typ = max(1.0, js_hypot(vx[sj] - vx[si], vy[sj] - vy[si]))
    nins = max(2, int(math.ceil(elen / typ * 0.05)))
    fl = n - ntrim + nins
    o = np.empty((4, fl))
    for r in range(4):  # element loops, not slices: each slice is a view numba counts references on
        for i in range(s):
            o[r, i] = p[r, i]
    k = s
    jit_ = elen * 0.06
    dbase = p[3, s % n]
    for j in range(nins):
        t = (j + 1.0) / (nins + 1.0)
        o[0, k] = vx[i0] + evx * t + rr(st, -jit_, jit_)
        o[1, k] = vy[i0] + evy * t + rr(st, -jit_, jit_)
        o[2, k] = rr(st, 0.3, 0.5)
        o[3, k] = dbase
        k += 1
    for r in range(4):
        for i in range(n - te):
            o[r, k + i] = p[r, te + i]
    return o


@njit
def _grow(p, f, st, bleed, outdeg, cap, pools, flip):
    """p5.brush's ``grow``: trim by f (999: none, with a random bleed; 997: none, each vertex's own bleed),
    then a displaced midpoint after every vertex, subsampled to ``cap`` vertices. ``flip`` reads every
    edge direction inverted (the texture's polygons grow inwards)."""
    t = _trim(p, f, st)
    n = t.shape[1]
    mod = rr(st, 0.6, 0.8) if f == 999.0 else bleed
    pre = 1
    if cap > 0 and n * 2 > cap:
        pre = int(math.ceil(n * 2 / cap))
    if pre >= 2 and pre % 2 == 0:
        # every inserted vertex would be dropped by the cap: the trimmed polygon, with the draws p5.brush still makes
        # (their values unused: the stream only moves on, four numbers per vertex that would be displaced)
        k = 0
        for i in range(n):
            if f < 997.0:
                mod = t[2, i]
            if mod >= 0.05:
                k += 4
        st[0] = advance(np.int64(st[0]), k)
        if not flip:
            return t
        o = t.copy()
        for i in range(n):
            o[3, i] = 1.0 - t[3, i]
        return o
    o = np.empty((4, 2 * n))
    # the loop's numbers (four per displaced vertex) drawn ahead in one vectorised block (``draws``)
    ss = np.int64(st[0])
    ub = np.empty(4 * n)
    draws(ss, ub)
    up = 0
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        ui = _u(2 * i)
        uo = _u(2 * i + 1)
        xi = t[0, i]
        yi = t[1, i]
        mi = t[2, i]
        di = (t[3, i] != 0.0) != flip
        if f < 997.0:
            mod = mi
        o[0, ui] = xi
        o[1, ui] = yi
        o[2, ui] = mi
        o[3, ui] = 1.0 if di else 0.0
        sx = t[0, j] - xi
        sy = t[1, j] - yi
        if mod < 0.05:
            # the midpoint as p5.brush computes it here, (a + b) / 2: a vertex on a self-crossing polygon's edge
            # is then inside or outside of it for both alike, and the scatter draws the same numbers
            o[0, uo] = (xi + t[0, j]) / 2.0
            o[1, uo] = (yi + t[1, j]) / 2.0
            o[2, uo] = mi
        else:
            # the edge turned by -+90 deg + U(-5, 5) deg, cos/sin from p5.brush's tables
            u = between(ub[up], -1.0, 1.0)
            k = _u(lut_index((outdeg if di else -outdeg) + u * 5.0))  # >= 0: no wraparound test
            c = LUT_COS[k]
            s = LUT_SIN[k]
            dx = c * sx + s * sy
            dy = c * sy - s * sx
            dd = pools[0, _u(ub[up + 1] * POOL)] * between(ub[up + 2], 0.65, 1.35) * mod
            o[0, uo] = xi + sx * 0.5 + dx * dd
            o[1, uo] = yi + sy * 0.5 + dy * dd
            o[2, uo] = mi + pools[1, _u(ub[up + 3] * POOL)]
            up += 4
        o[3, uo] = 1.0 if di else 0.0
    st[0] = advance(ss, up)
    idx = 2 * n
    if cap > 0 and idx > cap:
        step = int(math.ceil(idx / cap))
        kept = int(math.ceil(idx / step))
        k4 = np.empty((4, kept))
        for i in range(kept):
            k4[:, i] = o[:, i * step]
        return k4
    return o


@njit
def _inside(px, py, bx, by):
    n = bx.shape[0]
    cross = 0
    for k in range(n):
        ay = by[k]
        b2 = by[(k + 1) % n]
        if (ay > py) == (b2 > py):
            continue
        t = (py - ay) / (b2 - ay)
        if px < bx[k] + t * (bx[(k + 1) % n] - bx[k]):
            cross += 1
    return cross % 2 == 1


@njit
def _scatter(p, ratio, st, bx, by, bb, midx, midy):
    n = p.shape[1]
    keep = max(3, int(n * ratio))
    step = n / keep
    o = np.empty((4, keep))
    for i in range(keep):
        j = int(i * step + rr(st, 0.0, step * 0.8)) % n
        px = p[0, j]
        py = p[1, j]
        if px < bb[0] or px > bb[2] or py < bb[1] or py > bb[3]:
            outside = True
        else:
            outside = not _inside(px, py, bx, by)
        if outside:
            px = midx + (px - midx) * rr(st, 0.3, 0.6)
            py = midy + (py - midy) * rr(st, 0.3, 0.6)
        o[0, i] = px
        o[1, i] = py
        o[2, i] = p[2, j]
        o[3, i] = 0.0 if p[3, j] != 0.0 else 1.0
    return o


@njit
def _dirs(vx, vy, bx, by):
    n = vx.shape[0]
    nb = bx.shape[0]
    out = np.empty(n, np.bool_)
    for i in range(n):
        j = (i + 1) % n
        sxx = vx[j] - vx[i]
        syy = vy[j] - vy[i]
        r1x = vx[i] + sxx / 2.0
        r1y = vy[i] + syy / 2.0
        rdx = syy
        rdy = -sxx
        eneg = -(sxx * sxx + syy * syy)
        count = 0
        for k in range(nb):
            sax = bx[k]
            say = by[k]
            sdx = bx[(k + 1) % nb] - sax
            sdy = by[(k + 1) % nb] - say
            den = sdy * rdx - sdx * rdy
            if den == 0.0:
                continue
            ub = (rdx * (r1y - say) - rdy * (r1x - sax)) / den
            if ub < 0.0 or ub > 1.0:
                continue
            ua = (sdx * (r1y - say) - sdy * (r1x - sax)) / den
            if ua * eneg <= 0.01:
                continue
            count += 1
        out[i] = count % 2 == 0
    return out


@njit
def _q8(a):
    """An alpha as the 8-bit canvas stores it."""
    return math.floor(min(max(a, 0.0), 1.0) * 255.0 + 0.5) / 255.0


#: Each layer class (main, scatter, darker) is counted in its own byte of the summed mask value.
_CLASS = (1, 256, 65536)
_TAB_N = 64  # (the flattened tables' index shifts in _replay and _to_alpha take 64 = 1 << 6, 256 = 1 << 8)


@njit
def _s8(alpha_pct):
    """A layer's alpha (percent) as the 8-bit value the canvas draws it with."""
    return int(math.floor(min(max(alpha_pct / 100.0, 0.0), 1.0) * 255.0 + 0.5))


@njit_inline
def _layer(d, dcount, nl, xm, xs, key, mit, mlast, lo, hi, p, s8, code, dirty, xf, sb, hw):
    """One layer polygon into the row differences (the scratch's arrays are taken out once per fill: each
    attribute read of the namedtuple is a counted reference). Under a frame (``xf``, see ``watercolour``) the
    polygon is taken to the canvas first.

    p5.brush fills and then strokes every layer polygon: a class whose fill alpha rounds to 0 (``s8``; the
    scatter class of a fill with no texture, or a faint one) still gets its outline when the border's alpha
    ``sb`` does not, so the polygon then enters the cover count alone (code 0 in the layer counts). With an
    outline (half width ``hw`` on the canvas) its miter joins go into ``mit`` (``_miter_spikes``)."""
    if s8 > 0 or sb > 0:
        c = code if s8 > 0 else 0
        q = p if moves_nothing(xf) else _framed(p, xf)
        span_polygon(d, dcount, nl, xm, xs, key if sb > 0 else -1, q, c, dirty, lo, hi)
        if sb > 0:
            _miter_spikes(mit, mlast, q, hw, lo, hi, dirty)


#: Canvas ``stroke()``'s miter limit (its default, which p5.brush keeps): a join whose miter would reach past
#: this many half widths from the vertex is bevelled instead.
MITER_LIMIT = 10.0


@njit
def _miter_spikes(mit, last, p, hw, lo, hi, dirty):
    """The miter joins of the outline of closed polygon p (half width hw) past the bevel: at each vertex the
    triangle from the two offset corners on the turn's outer side to the miter's tip, +1 over the pixel
    centres it covers in the row differences ``mit`` (``lo``, ``hi`` and the canvas box ``dirty[0:4]`` grow
    to hold them; ``dirty[8]`` notes that ``mit`` was written). One polygon's joins are a union, as the canvas
    fills one path (``last``: see ``span_triangle``; ``last[0, h]`` counts the polygons).

    p5.brush strokes each layer polygon with the canvas's default joins: miters, up to ``MITER_LIMIT`` half
    widths long. The border bands (``_resolve_box``) count the pixels near edges, not the joins; at a sharp
    turn of a bleeding polygon the miter's tip reaches far past them (up to 5 outline widths). Measured on the
    layer polygons of fills at border 0.6-1 drawn by Chromium's stroke(), the bands held 0.78-0.85 of its
    count without the joins, 0.92-1.01 with them (summed instead of a union: a little more, and farther from
    it pixel by pixel). Joins sharper than the limit are bevels (nothing past the bevel), a segment shorter
    than 1/4096 px makes none (Skia's stroker drops it), and a tip less than a pixel past the bevel is left out
    (most vertices: a pass without branches finds the others; at 0.5 px the triangles cost twice as much for
    18% more pixels). p5.brush composites only the box of the polygons' vertices widened by the outline, so a
    tip is cut at its own polygon's (those of the segment's other polygons, rarely larger, are not read).
    ``watercolour`` draws them for outlines of 8-bit alpha 2 or more (at 1, a band adds only
    to a pixel the layers left empty: a few hundred pixels of a fill moved) and narrower than ``WIDE_K`` (wide
    outlines are counted per polygon near, ``_resolve_wide``; miters on top of them came out far too dark)."""
    h = mit.shape[0]
    w = mit.shape[1] - 1
    n = p.shape[1]
    if n < 3 or not hw > 0.0:
        return
    # p5.brush composites a segment only over the box of its polygons' vertices, widened by 1 + hw
    # (``mask.js`` strokePadding) and 4 px (``DIRTY_FILL_PADDING``): a tip past its polygon's box is cut there
    px = p[0]
    py = p[1]
    bx0 = max(int(math.floor(px.min() - 1.0 - hw)) - 4, 0)
    by0 = max(int(math.floor(py.min() - 1.0 - hw)) - 4, 0)
    bx1 = min(int(math.ceil(px.max() + 1.0 + hw)) + 4, w)
    by1 = min(int(math.ceil(py.max() + 1.0 + hw)) + 4, h)
    if bx1 <= bx0 or by1 <= by0:
        return
    last[0, h] += 1
    pid = last[0, h]
    # the tip lies hw (1 / c - c) past the bevel, c = cos(turn / 2): at least 1 px where cos(turn) <= tc
    k = 1.0 / hw
    cs = 0.5 * (math.sqrt(k * k + 4.0) - k)
    tc = 2.0 * cs * cs - 1.0
    tc2 = tc * tc
    cmin = 2.0 / (MITER_LIMIT * MITER_LIMIT) - 1.0  # cos(turn) below this: past the miter limit
    # which vertices turn enough, in a pass without branches (it runs on vectors; most fail): cos(turn) =
    # dot / sqrt(ll) <= tc, tested without the square root
    keep = np.empty(n, np.bool_)
    sharp = tc < 0.0  # (a hairline: only turns past 90 deg reach a pixel)
    for j in range(n - 2):
        i = _u(j + 1)
        ax = px[i] - px[_u(j)]
        ay = py[i] - py[_u(j)]
        bx = px[_u(j + 2)] - px[i]
        by = py[_u(j + 2)] - py[i]
        dot = ax * bx + ay * by
        ll = (ax * ax + ay * ay) * (bx * bx + by * by)
        keep[i] = ((dot <= 0.0) & (dot * dot >= tc2 * ll)) if sharp else ((dot <= 0.0) | (dot * dot <= tc2 * ll))
    keep[0] = True  # the first and last vertices (their neighbours wrap around) are tested below
    keep[n - 1] = True
    for i in range(n):
        if not keep[_u(i)]:
            continue
        ia = i - 1 if i > 0 else n - 1
        ib = i + 1 if i + 1 < n else 0
        vx = px[i]
        vy = py[i]
        ax = vx - px[ia]
        ay = vy - py[ia]
        bx = px[ib] - vx
        by = py[ib] - vy
        l1 = math.sqrt(ax * ax + ay * ay)
        l2 = math.sqrt(bx * bx + by * by)
        if l1 < 1.0 / 4096 or l2 < 1.0 / 4096:
            continue
        cphi = (ax * bx + ay * by) / (l1 * l2)
        if cphi < cmin or cphi > tc:
            continue
        sgn = (-1.0 if ax * by - ay * bx > 0.0 else 1.0) * hw  # the outer side's normals, hw long
        n1x = -sgn * ay / l1
        n1y = sgn * ax / l1
        n2x = -sgn * by / l2
        n2y = sgn * bx / l2
        # the tip: along n1 + n2 (of length 2 hw cos(turn / 2)), hw / cos(turn / 2) from the vertex
        f = 1.0 / (1.0 + cphi)
        span_triangle(mit, vx + n1x, vy + n1y, vx + (n1x + n2x) * f, vy + (n1y + n2y) * f, vx + n2x, vy + n2y, bx0,
                      by0, bx1, by1, lo, hi, dirty, last, pid)


@njit
def _framed(p, xf):
    """A polygon's x and y rows taken through the frame's similarity (``watercolour``'s ``xf``)."""
    n = p.shape[1]
    q = np.empty((2, n))
    a, b, c, d, e, f = xf[0], xf[1], xf[2], xf[3], xf[4], xf[5]
    for i in range(n):
        x = p[0, i]
        y = p[1, i]
        q[0, i] = a * x + c * y + e
        q[1, i] = b * x + d * y + f
    return q


@njit
def layer_alphas(opacity, tex, border):
    """The 8-bit alphas of a fill's main, scatter (texture), darker and border layers."""
    intensity = min(max(opacity / 255.0, 0.0), 1.0)
    inten = 2.0 * intensity * (1.0 + tex / 2.0)
    return np.array([_s8(inten), _s8(inten * (tex * 3.0)), _s8(inten * 2.0), _s8(border)], np.int64)


@njit
def _over_tables(svals):
    """tab[k, d, n]: the 8-bit mask alpha after n source-over layers of 8-bit alpha svals[k] on d.

    Chromium's 2D canvas (measured) adds floor(s x (255 - d) / 255) per layer, so a 1/255 layer
    never adds to a pixel that already holds 1/255, and a 2/255 layer adds 1: faint fills
    (opacity 60-90) stay far lighter than the float sum 1 - (1 - s/255)^n would make them.
    """
    k = svals.shape[0]
    tab = np.empty((k, 256, _TAB_N), np.uint8)  # 64 KB: stays in cache while every pixel looks it up
    for i in range(k):
        sv = svals[i]
        for d0 in range(256):
            d = d0
            tab[i, d0, 0] = d
            for j in range(1, _TAB_N):
                d = d + (sv * (255 - d)) // 255
                tab[i, d0, j] = d
    return tab


@njit_vec  # divides only by k * k >= 1
def _resolve_box(cnt, hs, s, x0, y0, x1, y1, lw):
    """The k x k box mean (k = round(lw)) of the cover count ``cnt`` (the scratch's dcount or dneg) into ``s``
    (``hs``: the scratch's l, for the horizontal box sums): the faint outline every layer polygon
    gets (canvas ``stroke()``, width lw) is summed over all polygons of a segment at once, since each polygon
    edge is a unit step in the cover count and lw x |grad(box_lw * count)| counts the bands over a pixel.
    ``cnt`` is prefix-summed in place over the region into the cover count (exact in int32) on the way.
    (The per-class layer counts ``d`` stay row differences: the alpha pass sums them as it goes.)

    The region is in the cover count's indices, which reach ``MARGIN`` px past the canvas (``span_polygon``):
    the polygons go on past the canvas's edge, where p5.brush's mask has no edge. Cut at the canvas's edge,
    the count made a false outline k / 2 px deep along it (a fill with a large border and a shape past the
    canvas painted a dark frame: 215 against p5.brush's 240 in the outer 2 px). Past the region the count is
    taken as its edge pixel's (the window is clamped, not cut): the zero it is where the region ends inside
    the buffer (it reaches more than k / 2 px past every polygon), and level past the margin, where an
    outline wider than 2 x MARGIN would need more.

    Each row's horizontal box sums are taken while the row just resolved is in cache. Box sums of integer
    counts are integers, so they are summed exactly in integers (``l`` holds the horizontal ones); only the
    mean is a double.
    """
    k = max(1, int(round(lw)))
    h = k // 2
    w = x1 - x0
    pp = np.empty(w, np.int64)  # the row's prefix sums of the cover count (a second prefix sum)
    # 2-D indices made unsigned (``_jit.uidx``): no wraparound tests, no row views to reference-count
    for q in range(y0, y1):
        uq = _u(q)
        accs = 0
        acc2 = 0
        for j in range(w):
            c = _u(x0 + j)
            accs += cnt[uq, c]
            acc2 += accs
            cnt[uq, c] = accs
            pp[j] = acc2
        first = cnt[uq, _u(x0)]
        last = accs
        # hs[q, x0 + j] = sum of the row's counts over [j + h - k + 1, j + h], clamped to the region: a difference
        # of two prefix sums plus the edge pixel's count times the window's overhang, in three branch-free runs
        # (window past the left edge, within, past the right edge; a window wider than the region is past both)
        jl = min(max(k - 1 - h, 0), w)  # j < jl: the window starts left of the region
        jr = max(min(w - h, w), 0)  # j >= jr: the window ends right of the region
        for j in range(min(jl, jr)):
            hs[uq, _u(x0 + j)] = pp[_u(j + h)] + (k - 1 - h - j) * first
        for j in range(jr, jl):  # both
            hs[uq, _u(x0 + j)] = pp[w - 1] + (k - 1 - h - j) * first + (j + h - w + 1) * last
        for j in range(jl, jr):
            hs[uq, _u(x0 + j)] = pp[_u(j + h)] - (pp[_u(j + h - k)] if j + h - k >= 0 else 0)
        for j in range(max(jl, jr), w):
            hs[uq, _u(x0 + j)] = pp[w - 1] - (pp[_u(j + h - k)] if j + h - k >= 0 else 0) + (j + h - w + 1) * last
    _box_rows(hs, 0, 0, np.zeros(w, np.int64), s, x0, y0, x1, y1, k)


@njit_vec
def _box_rows(hs, hy, hx, accv, s, x0, y0, x1, y1, k):
    """The vertical half of a k x k box mean: s[q, c] = the sum of ``hs`` (horizontal box sums; canvas row q,
    column c at hs[q - hy, c - hx]) over rows [q + h - k + 1, q + h] (h = k // 2, clamped to [y0, y1): past the
    region a row reads its edge row's) over k^2, for the region [x0, x1) x [y0, y1). Row by row, one running sum
    per column in ``accv`` (zeros, of the sums' type: exact integers for integer counts), without striding
    through memory."""
    h = k // 2
    w = x1 - x0
    for r in range(y0 + h - k + 1, y0 + h + 1):
        ur = _u(min(max(r, y0), y1 - 1) - hy)
        for j in range(w):
            accv[j] += hs[ur, _u(x0 + j - hx)]
    # the mean as the sum times 1 / k^2: a vector division was a quarter of this pass (moves 18 pixels of the
    # 66 parity paintings by one level, all in arch_city_mud: a band's width rounds the other way)
    ikk = 1.0 / (k * k)
    for qo in range(y0, y1):
        uo = _u(qo)
        for j in range(w):
            s[uo, _u(x0 + j)] = accv[j] * ikk
        ua = _u(min(qo + h + 1, y1 - 1) - hy)
        ud = _u(min(max(qo + h - k + 1, y0), y1 - 1) - hy)
        for j in range(w):
            accv[j] += hs[ua, _u(x0 + j - hx)] - hs[ud, _u(x0 + j - hx)]


#: A segment whose crossings met this many of the other winding sign's (``span_polygon``) reads its outlines
#: from the two signs' counts apart near them (``_flush``).
SHARED_EDGE_HITS = 1


#: Outlines at least this wide (k = round(lw) px) are counted per polygon near, not per edge (``_resolve_wide``).
WIDE_K = 24


@njit
def _resolve_wide(cnt, cnt2, two, s, x0, y0, x1, y1, lw):
    """For outlines of width k >= WIDE_K: the k x k box mean of the edge density |grad C| of the outlines' count
    ``cnt`` (plus |grad C2| of ``cnt2`` when ``two``: the windings of the other sign) into ``s`` (``_band_row``
    then takes lw x that, at most the segment's polygon count, as the bands).

    p5.brush strokes each layer polygon once: a pixel within half a width of any of its edges gets one band from
    it. The gradient of the count's box mean (``_resolve_box``) counts edges with their sense, so where a polygon's
    edges of opposite sense lie closer than the width they cancel: a self-crossing shape whose centroid, so its
    size, lies far off (outlines 115-187 px wide) kept few of its bands. The edge density does not cancel; it
    counts a pixel near two edges of a polygon twice, so the bands are capped at the number of polygons. Only
    this wide: at ordinary widths the density counts a jagged edge's extra length as more bands.
    The counts are prefix-summed in place over the region (as ``_resolve_box`` does), and past the region a
    count is taken as its edge pixel's."""
    k = max(1, int(round(lw)))
    h = k // 2
    w = x1 - x0
    for q in range(y0, y1):
        acc = 0
        acc2 = 0
        for j in range(w):
            acc += cnt[_u(q), _u(x0 + j)]
            cnt[_u(q), _u(x0 + j)] = acc
            if two:
                acc2 += cnt2[_u(q), _u(x0 + j)]
                cnt2[_u(q), _u(x0 + j)] = acc2
    hs = np.empty((y1 - y0, w))  # the edge density's horizontal box sums
    pp = np.empty(w + 1)
    for q in range(y0, y1):
        qm = max(q - 1, y0)
        qp = min(q + 1, y1 - 1)
        pp[0] = 0.0
        for j in range(w):
            c = x0 + j
            gx = 0.5 * (cnt[_u(q), _u(min(c + 1, x1 - 1))] - cnt[_u(q), _u(max(c - 1, x0))])
            gy = 0.5 * (cnt[_u(qp), _u(c)] - cnt[_u(qm), _u(c)])
            g = math.sqrt(gx * gx + gy * gy)
            if two:
                gx = 0.5 * (cnt2[_u(q), _u(min(c + 1, x1 - 1))] - cnt2[_u(q), _u(max(c - 1, x0))])
                gy = 0.5 * (cnt2[_u(qp), _u(c)] - cnt2[_u(qm), _u(c)])
                g += math.sqrt(gx * gx + gy * gy)
            pp[j + 1] = pp[j] + g
        first = pp[1]
        last = pp[w] - pp[w - 1]
        for j in range(w):  # the window [j + h - k + 1, j + h]; its pixels past the region read the edge pixel's
            a = j + h - k + 1
            b = j + h
            hs[q - y0, j] = (pp[min(b, w - 1) + 1] - pp[max(a, 0)] + max(-a, 0) * first
                             + max(b - (w - 1), 0) * last)
    _box_rows(hs, y0, x0, np.zeros(w), s, x0, y0, x1, y1, k)


@njit
def _erase_discs(sc, holes, sizex, sizey, midx, midy, st, x0, y0, x1, y1, xf):
    """The texture's destination-out holes as hard discs in the row-difference array ``e``, clipped to the
    segment's region [x0, x1) x [y0, y1): the mask is zero outside it, and a third of the discs (gaussian
    around the shape, up to half its size) reach past it. Every disc's numbers are drawn all the same.

    Returns the rows they touch [ey0, ey1) and their leftmost column (what the holes do to the alpha:
    ``erosion_table``)."""
    n = int(rr(st, 80.0, 110.0) * (2.0 + 1.5 * holes))
    hx = sizex / 1.3
    hy = sizey / 1.3
    mins = min(sizex, sizey) * 1.3
    e = sc.e
    hh = e.shape[0]
    w = e.shape[1] - 1
    ex0 = w
    ey0 = hh
    ey1 = 0
    # the stream in locals for the loop (``brush_random.draw``; the gaussian's kept value too), so no load from
    # ``st`` waits behind the discs' stores
    ss = np.int64(st[0])
    kept = st[1] != 0.0
    kv = st[2]
    # the discs first, then their spans: the gaussians' log and square root then overlap across discs instead
    # of waiting behind each disc's rows (whose loop lengths vary and mispredict)
    dx = np.empty(n)
    dy = np.empty(n)
    dr = np.empty(n)
    for i in range(n):
        ss, kept, kv, gx = gauss_draw(ss, kept, kv)
        dx[i] = midx + (gx * hx + 0.0)
        ss, kept, kv, gy = gauss_draw(ss, kept, kv)
        dy[i] = midy + (gy * hy + 0.0)
        ss, rad = draw(ss, 0.03 * mins, 0.45 * mins)
        dr[i] = rad / 2.0
    fa, fb, fc, fd, fe, ff, fs = xf[0], xf[1], xf[2], xf[3], xf[4], xf[5], xf[6]
    for i in range(n):
        if i % 5 != 0:
            # under a frame the disc is drawn in the shape's own axes and taken to the canvas (a similarity)
            x = fa * dx[i] + fc * dy[i] + fe
            y = fb * dx[i] + fd * dy[i] + ff
            r = dr[i] * fs
            if x + r < x0 or x - r > x1 or y + r < y0 or y - r > y1:
                continue
            span_disc(e, x, y, r, 1, x0, y0, x1, y1)
            ex0 = min(ex0, max(int(x - r) - 1, x0))
            ey0 = min(ey0, max(int(y - r) - 1, y0))
            ey1 = max(ey1, min(int(y + r) + 2, y1))
    st[0] = ss
    st[1] = 1.0 if kept else 0.0
    st[2] = kv
    return ex0, ey0, ey1


#: Hit counts whose erosion is a table read (``erosion_table``); more hits on one pixel are computed.
_ERODE_N = 64


@njit
def _erosion_table(holes):
    """etab[k, a]: the 8-bit mask alpha a after k texture holes. Each hole is a destination-out of the canvas's
    8-bit alpha by e8 (its fill alpha in 8 bits), which Chromium rounds after every hole:
    a -> (a x (255 - e8) + 127) // 255 (measured for every a and up to 12 holes at three strengths). An alpha
    with a x e8 <= 127 rounds back to itself and stops eroding. Rounding once after k holes instead
    (a x keep^k) eroded more: a texture 0.5 fill came out 5-10% fainter than in p5.brush.
    Returns (etab, e8)."""
    e8 = int(math.floor(min((5.0 - 0.3) * holes / 255.0, 1.0) * 255.0 + 0.5))
    etab = np.empty((_ERODE_N, 256), np.uint8)
    for k in range(_ERODE_N):
        for a in range(256):
            etab[k, a] = _erode(a, k, e8)
    return etab, e8


@njit_inline
def _erode(a, k, e8):
    """8-bit alpha a after k holes of 8-bit alpha e8 (see ``_erosion_table``). Until a hole changes nothing,
    each takes at least one level off, so the loop runs at most a times."""
    for _ in range(k):
        b = (a * (255 - e8) + 127) // 255
        if b == a:
            break
        a = b
    return a


@functools.lru_cache(maxsize=64)
def erosion_table(holes: float):
    """``_erosion_table`` per hole strength (fills of a painting mostly share it; 16 KB each)."""
    return _erosion_table(holes)


@njit_vec
def _band_row(s, s2, two, q, c0, c1, x0, lw, nb, m, cap):
    """The border bands over columns [c0, c1) of row q (inner pixels of the region from x0) into ``nb[c - x0]``:
    lw x |grad s| rounded (branch-free, so it vectorises; lw x (|grad(s - s2)| + |grad s2|) when ``two``: ``s2``
    the negative windings' box mean, ``s`` all of them), or for wide outlines (``cap`` > 0, ``_resolve_wide``) lw x s
    rounded, at most ``cap``. ``s`` has the cover count's margin m (canvas pixel (q, c) at [q + m, c + m])."""
    if cap > 0:
        for j in range(c1 - c0):
            nb[_u(c0 + j - x0)] = min(cap, int(lw * s[_u(q + m), _u(c0 + j + m)] + 0.5))
        return
    uq = _u(q + m)
    um = _u(q + m - 1)
    up = _u(q + m + 1)
    if two:
        for j in range(c1 - c0):
            c = c0 + j + m
            hx = 0.5 * (s2[uq, _u(c + 1)] - s2[uq, _u(c - 1)])
            hy = 0.5 * (s2[up, _u(c)] - s2[um, _u(c)])
            gx = 0.5 * (s[uq, _u(c + 1)] - s[uq, _u(c - 1)]) - hx  # the positive windings' (s: all of them)
            gy = 0.5 * (s[up, _u(c)] - s[um, _u(c)]) - hy
            nb[_u(c - m - x0)] = int(lw * (math.sqrt(gx * gx + gy * gy) + math.sqrt(hx * hx + hy * hy)) + 0.5)
        return
    for j in range(c1 - c0):  # 2-D indices unsigned (``_jit.uidx``): plain vector loads, no gathers
        c = c0 + j + m
        gx = 0.5 * (s[uq, _u(c + 1)] - s[uq, _u(c - 1)])
        gy = 0.5 * (s[up, _u(c)] - s[um, _u(c)])
        nb[_u(c - m - x0)] = int(lw * math.sqrt(gx * gx + gy * gy) + 0.5)


@njit_inline  # called per run of pixels with the table: inlined, so no reference counting per call
def _replay(tf, i, d, m):
    """The 8-bit alpha after m source-over layers of class i on d, from the source-over tables flattened
    (``tab.reshape(-1)``: tab[i, d, m] at i << 14 | d << 6 | m, constant strides, so an index is shifts and ors
    instead of multiplies by the table's shape, and the alpha loop keeps fewer values in registers)."""
    while m >= _TAB_N:
        d = np.int64(tf[_u((i << 14) | (d << 6) | (_TAB_N - 1))])
        m -= _TAB_N - 1
    return np.int64(tf[_u((i << 14) | (d << 6) | m)])


@njit
def _to_alpha(sc, x0, y0, x1, y1, tab, lw, bands, ex0, ey0, ey1, etab, e8, a8, ox, oy, alo, ahi, cap, bx0, by0, bx1,
              by1, bc, two, ny0, ny1):
    """The 8-bit mask alpha of the region into ``a8`` (origin ox, oy): the layer counts replayed through the
    source-over tables, the border bands (lw x |grad s|) on top, then the texture's holes: k hits erode the
    alpha k times with rounding, as the canvas does, so faint alpha survives instead of vanishing. The bands
    replay through table class ``bc`` (``_band_class``); with ``two`` the rows [ny0, ny1) (the margin's indices)
    read the windings' two signs apart, ``s2`` being the negative ones' box mean (``_band_row``).

    Only columns [alo, ahi) of each a8 row (``_alpha_rows``) can be non-zero; only they are written. The layer
    counts are summed from their row differences along the way, from alo: a row's differences lie at or right
    of its own first covered column, and alo is at most that; so do the miter joins' (``mit``), which add to the
    bands. The bands are read from the box mean ``s`` only within the box it was resolved over ([bx0, bx1) x
    [by0, by1), the cover count's indices): a miter's tip can reach past it, where only the miter counts."""
    lc = sc.d
    s = sc.s
    s2 = sc.s2
    e = sc.e
    mit = sc.mit
    m = (s.shape[0] - lc.shape[0]) // 2
    tf = tab.reshape(-1)  # both tables flattened: see ``_replay``
    ef = etab.reshape(-1)  # etab[k, a] at k << 8 | a
    nb = np.zeros(x1 - x0, np.int64)
    # the bands leave the region's rim out (nb's first and last entries stay 0 there), but not where the rim is
    # the canvas's edge: the box mean ``s`` reaches into the cover count's margin, so the gradient is read there
    hh = lc.shape[0]
    ww = lc.shape[1] - 1
    # (the gradient at a pixel reads the mean one pixel to each side: within the resolved box)
    qlo = max(y0 + 1 if y0 > 0 else 0, by0 - m + 1)
    qhi = min(y1 - 1 if y1 < hh else hh, by1 - m - 1)
    clo = max(x0 + 1 if x0 > 0 else 0, bx0 - m + 1)
    chi = min(x1 - 1 if x1 < ww else ww, bx1 - m - 1)
    for q in range(y0, y1):
        ua = _u(q - oy)
        ca = ox + alo[ua]
        cb = ox + ahi[ua]
        if cb <= ca:
            continue
        if bands and q >= qlo and q < qhi:
            b0 = min(max(ca, clo), cb)  # (within the row's reach even if the resolved box lay past it)
            b1 = max(min(cb, chi), b0)
            _band_row(s, s2, two and q + m >= ny0 and q + m < ny1, q, b0, b1, x0, lw, nb, m, cap)
            # the row's reach past them gets none (nb holds an earlier row's there): the region's rim, and
            # where a miter reaches past the resolved box
            for c in range(ca, b0):
                nb[_u(c - x0)] = 0
            for c in range(b1, cb):
                nb[_u(c - x0)] = 0
        elif bands:  # the region's first and last rows get no bands (nb holds the row before's)
            for c in range(ca, cb):
                nb[_u(c - x0)] = 0
        uq = _u(q)
        eacc = 0
        if q >= ey0 and q < ey1:  # prefix sums start at the leftmost disc so every span's +1 is counted
            lo = min(ex0, ca)
            for j in range(ca - lo):
                eacc += e[uq, _u(lo + j)]
        last = -1
        dl = 0
        code = 0
        kacc = 0
        for j in range(cb - ca):  # 2-D indices unsigned (``_jit.uidx``): no wraparound tests, no row views
            c = _u(ca + j)
            eacc += e[uq, c]  # rows without holes hold zeros
            code += lc[uq, c]  # the layer counts' row differences summed (none lie left of ca: see above)
            kacc += mit[uq, c]  # the miter joins over the pixel, the same way (zeros without)
            b = nb[_u(c - x0)] + kacc  # zeros without bands
            if code != last:  # runs of pixels under the same layers share the first three classes
                dl = _replay(tf, 2, _replay(tf, 1, _replay(tf, 0, 0, code & 255), (code >> 8) & 255), code >> 16)
                last = code
            # the bands on top: a table read even for none (tab[3, d, 0] is d), which costs less than the
            # branch, mispredicted along every polygon edge
            d = np.int64(tf[_u((bc << 14) | (dl << 6) | b)]) if b < _TAB_N else _replay(tf, bc, dl, b)
            # k rounded erosions by table (k = 0 reads d back): a branch only for the rare pixel under more holes
            d = np.int64(ef[_u((eacc << 8) | d)]) if eacc < _ERODE_N else _erode(d, eacc, e8)
            a8[ua, _u(c - ox)] = d


@njit
def _alpha_rows(sc, x0, y0, x1, y1, r, ox, oy, rh):
    """Per row of the padded region (origin ox, oy) the columns [alo, ahi) (region-relative) where the mask
    can be non-zero: the polygons' cover of rows within r (the bands' reach) widened by r, within the region.
    Rows outside [y0, y1) are empty (the pad ring)."""
    lo = sc.lo
    hi = sc.hi
    alo = np.zeros(rh, np.int64)
    ahi = np.zeros(rh, np.int64)
    for q in range(y0, y1):
        mn = x1 + r
        mx = x0 - r - 1
        for p in range(max(q - r, y0), min(q + r + 1, y1)):
            mn = min(mn, lo[p])
            mx = max(mx, hi[p])
        a = max(mn - r, x0)
        b = min(mx + r + 1, x1)
        if b > a:
            alo[q - oy] = a - ox
            ahi[q - oy] = b - ox
    return alo, ahi


#: The 8-bit alphas an outline thinner than a pixel can composite at (a fill's border alpha is 3 at most); their
#: source-over tables follow a fill's own four (``over_tables``), so class 3 + a holds alpha a's.
_THIN_ALPHAS = (1, 2, 3)


@njit
def _band_class(s, lw):
    """The table class the outline's bands replay through: 3, the border's 8-bit alpha s, for an outline at least a pixel
    wide; for a thinner one the alpha canvas ``stroke()`` composites it at: antialiased, a stroke lw px wide
    covers about lw of each pixel it crosses, and Skia scales an 8-bit alpha by 8-bit coverage c as
    (s x (c + 1)) >> 8, so a thin faint outline adds less per band, often 1 level, which over a mask that holds
    any alpha adds nothing. At least 1: the fringe a fill's outline paints past its layers (empty mask) stays.
    Counted at full alpha, thin outlines made small shapes too dark: 12 px circles at border 1 1.16 times
    p5.brush's darkness, 25 px ones 1.13; with this 1.04 and 1.05 (RELIABILITY).

    For the border's alpha 3 only (border >= 0.98). At alpha 2 (border 0.6-0.97) it mended untextured shapes
    as well (1.05-1.07 -> 1.00-1.04) but took textured ones from 1.00 to 0.97, where textured fills are already
    faint (a known limit), and moved the parity bench's textured border-0.6 paintings away from p5.brush's
    (``fruit_cherries`` colour distance 0.28 -> 1.24): left until the texture's own shortfall is found."""
    if lw >= 1.0 or s <= 2:
        return 3
    return 3 + max(1, (s * (int(math.floor(255.0 * lw + 0.5)) + 1)) >> 8)


@njit
def _flush(canvas, sc, dirty, lw, border, holes, sizex, sizey, midx, midy, st, pig, lut,
           work, tab, etab, e8, xf, npoly):
    hh = sc.d.shape[0]
    ww = sc.d.shape[1] - 1
    painted = dirty[2] > dirty[0] and dirty[3] > dirty[1]
    x0 = y0 = x1 = y1 = 0  # nothing painted: an empty region (the holes' numbers are drawn all the same)
    nx0 = ny0 = nx1 = ny1 = 0  # the box dneg's mean was resolved over (where read apart), in the margin's indices
    pad = max(1, int(round(lw))) // 2 + 2
    if painted:
        # alpha reaches h + 1 px past the polygons (the k x k box mean reaches h, its gradient one more), and
        # _band_row leaves the region's outermost pixels out: h + 2 is exactly enough (h + 1 changes pixels)
        x0 = max(dirty[0] - pad, 0)
        y0 = max(dirty[1] - pad, 0)
        x1 = min(dirty[2] + pad, ww)
        y1 = min(dirty[3] + pad, hh)
    ex0 = ww
    ey0 = hh
    ey1 = 0
    if holes != 0.0:  # drawn first, and even when nothing of the segment reached the canvas: p5.brush draws them
        ex0, ey0, ey1 = _erase_discs(sc, holes, sizex, sizey, midx, midy, st, x0, y0, x1, y1, xf)
    if painted:  # the passes below draw no random numbers
        bands = _q8(border * 0.01) > 0.0 and lw > 0.0
        wide = int(round(lw)) >= WIDE_K
        bx0 = by0 = bx1 = by1 = 0  # (no box: only miter joins reached the canvas, from polygons past the margin)
        # where polygons wound opposite ways share an edge (``span_polygon``), the windings read by sign apart
        two = bands and dirty[9] >= SHARED_EDGE_HITS and dirty[13] > dirty[11] and dirty[16] <= sc.nl.shape[0]
        ty0 = ty1 = 0  # the rows (margin's indices) whose bands are read from the two signs apart
        if two:  # the negative windings' count, from their spans' list
            _neg_spans(sc.dneg, sc.nl, dirty[16])
        if two and wide:  # dcount - dneg: the positive windings' count (row differences, over dneg's spans' box)
            sc.dcount[dirty[11]:dirty[13], dirty[10]:dirty[12] + 1] -= sc.dneg[dirty[11]:dirty[13],
                                                                               dirty[10]:dirty[12] + 1]
        if bands and dirty[6] > dirty[4]:  # over the spans' box in the margin's indices (it holds the region's)
            gh, gw = sc.l.shape
            # (one px more: the bands at the canvas's edge read the mean one px into the margin)
            bx0, by0 = max(dirty[4] - pad - 1, 0), max(dirty[5] - pad - 1, 0)
            bx1, by1 = min(dirty[6] + pad + 1, gw), min(dirty[7] + pad + 1, gh)
            if wide:
                _resolve_wide(sc.dcount, sc.dneg, two, sc.s, bx0, by0, bx1, by1, lw)
                if two:  # (dneg prefix-summed over this box)
                    nx0, ny0, nx1, ny1 = bx0, by0, bx1, by1
            else:
                _resolve_box(sc.dcount, sc.l, sc.s, bx0, by0, bx1, by1, lw)
                if two:
                    # the negative windings' box mean (0 past their box, as s2 is kept), over the rows the bands
                    # of the shared edges can reach: their marked rows (every ``MARK_EVERY``th) and as many again
                    # (the edge may go on to the next one), then a band's reach, then the box mean's own (the rows
                    # read apart: within, the mean is as over all the rows)
                    hk = pad - 2  # the box's half width
                    reach = MARK_EVERY + 2 * hk + 3
                    ly0, ly1 = max(dirty[11] - pad - 1, 0), min(dirty[13] + pad + 1, gh)  # the spans' rows, padded
                    my0, my1 = dirty[14] - reach, dirty[15] + 1 + reach  # the rows the meetings reach
                    nx0, ny0 = max(dirty[10] - pad - 1, 0), max(ly0, my0)
                    nx1, ny1 = min(dirty[12] + pad + 1, gw), min(ly1, my1)
                    _resolve_box(sc.dneg, sc.l, sc.s2, nx0, ny0, nx1, ny1, lw)
                    # (where the meetings' reach cut the rows: next to the cut, the mean of a cut box)
                    ty0 = ny0 + hk + 1 if my0 > ly0 else ny0
                    ty1 = ny1 - hk - 1 if my1 < ly1 else ny1
        # the composite's padded region (3 px for the rim term): the mask goes straight into its buffer
        _, _, _, _, px0, py0, rw, rh = _padded(hh, ww, 0, 0, hh, ww, x0, y0, x1, y1)
        # alpha reaches h + 1 px past the polygons with bands (see above), not past them without
        alo, ahi = _alpha_rows(sc, x0, y0, x1, y1, pad - 1 if bands else 0, px0, py0, rh)
        a8 = work.a8
        a8[:rh, :rw] = 0  # only the rows' reach is written, and the pad ring is outside the mask
        _to_alpha(sc, x0, y0, x1, y1, tab, lw, bands, ex0, ey0, ey1, etab, e8, a8, px0, py0, alo, ahi,
                  npoly if bands and wide else 0, bx0, by0, bx1, by1, _band_class(_s8(border), lw),
                  two and not wide, ty0, ty1)
        if two and not wide and nx1 > nx0:
            sc.s2[ny0:ny1, nx0:nx1] = 0.0
        _blend(canvas, a8, px0, py0, rw, rh, x0, y0, x1, y1, pig, False, lut, work, alo, ahi)
        sc.d[y0:y1, x0:x1 + 1] = 0
        if dirty[8] != 0:  # the miter joins lie in the region (they grew its box)
            sc.mit[y0:y1, x0:x1 + 1] = 0
        sc.lo[y0:y1] = 1 << 30
        sc.hi[y0:y1] = -(1 << 30)
    if dirty[7] > dirty[5]:  # the cover counts, margin included (spans there may miss the canvas)
        sc.dcount[dirty[5]:dirty[7], dirty[4]:dirty[6] + 1] = 0
    if nx1 > nx0:  # dneg was written: its spans' box, and the box its prefix sums were resolved over
        sc.dneg[min(dirty[11], ny0):max(dirty[13], ny1), min(dirty[10], nx0):max(dirty[12] + 1, nx1)] = 0
    sc.tag[0] += 1  # the next segment's crossing marks (``span_polygon``)
    if ey1 > ey0:
        sc.e[ey0:ey1, ex0:] = 0
    _clear_dirty(dirty)


@njit
def _neg_spans(dneg, nl, n):
    """The negative windings' spans ``span_polygon`` listed, into the row differences ``dneg`` (zero)."""
    for i in range(n):
        dneg[nl[i, 0], nl[i, 1]] += nl[i, 3]
        dneg[nl[i, 0], nl[i, 2]] -= nl[i, 3]


@njit
def new_dirty():
    """A fill segment's bookkeeping, as ``span_polygon``, ``_miter_spikes`` and ``_flush`` keep it: [0:4] the
    spans' box on the canvas, [4:8] in the cover count's margin, [8] whether ``mit`` holds miters, [9] how many
    crossings met one of the other winding sign's at the same x (a shared edge), [10:14] the negative windings'
    spans' box in the margin, [14:16] the first and last row of those meetings (margin), [16] how many negative
    windings' spans were listed (boxes as x0, y0, x1, y1, ends exclusive; empty: 1 << 30 and -(1 << 30))."""
    dirty = np.empty(17, np.int64)
    _clear_dirty(dirty)
    return dirty


@njit
def _clear_dirty(dirty):
    """``new_dirty``'s empty state, in place (each flush starts the next segment's)."""
    e = 1 << 30
    for i in (0, 4, 10):
        dirty[i] = e
        dirty[i + 1] = e
        dirty[i + 2] = -e
        dirty[i + 3] = -e
    dirty[8] = 0
    dirty[9] = 0
    dirty[14] = e
    dirty[15] = -e
    dirty[16] = 0


@njit
def watercolour(canvas, bx, by, bleed, out_dir, has_angle, angle, svals, tab, etab, e8, holes, border,
                scatter, pig, st, pools, sc, lut, work, xf):
    """Paint one watercolour fill of the polygon (bx, by) into ``canvas`` (createFill + FillPoly.fill).

    ``svals`` are the layer alphas (``layer_alphas``) and ``tab`` their source-over tables (``over_tables``);
    ``holes`` is the texture's hole strength (0: no holes) and ``etab``, ``e8`` what the holes do
    to the alpha (``erosion_table(holes)``). ``xf`` is the frame, [a, b, c, d, e, f, s]: the similarity
    (x, y) -> (a x + c y + e, b x + d y + f) of scale s (a mirror or not) from the polygon's coordinates to the
    canvas's. p5.brush builds a fill in the shape's own axes and draws it through the canvas transform, so under a
    rotation or a scale the sizes, centre offset, holes and border widths are the shape's own (``geometry.NO_FRAME``
    otherwise).
    """
    n = bx.shape[0]
    bb = np.array([bx.min(), by.min(), bx.max(), by.max()])
    wr = rr(st, 0.0, 75.0)
    fluid = int(n * 0.25 * (1.0 if wr < 5.0 else (2.0 if wr < 15.0 else 3.0)))
    mods = np.empty(n)
    for i in range(n):
        mods[i] = (1.0 if i > fluid else 0.3) * rr(st, 0.85, 1.4) * bleed
    if has_angle:
        k = lut_index(angle)
        c = LUT_COS[k]
        s = LUT_SIN[k]
        best = 0
        bd = 1e300
        for i in range(n):
            dot = bx[i] * c + by[i] * (-s)
            if dot < bd:
                bd = dot
                best = i
        shift = best
    else:
        shift = int(rr(st, 0.0, float(n)))
    p0 = np.empty((4, n))
    vx = p0[0]
    vy = p0[1]
    for i in range(n):
        vx[i] = bx[(i + shift) % n]
        vy[i] = by[(i + shift) % n]
    # centre: mean for small polygons, else area centroid
    if n < 8:
        cx = vx.mean()
        cy = vy.mean()
    else:
        area = 0.0
        ax = 0.0
        ay = 0.0
        for i in range(n):
            j = i + 1 if i + 1 < n else 0
            cr = vx[i] * vy[j] - vx[j] * vy[i]
            area += cr
            ax += (vx[i] + vx[j]) * cr
            ay += (vy[i] + vy[j]) * cr
        area *= 0.5
        if area != 0.0:
            cx = ax / (6.0 * area)
            cy = ay / (6.0 * area)
        else:
            cx = vx[0]
            cy = vy[0]
    sizex = 0.0
    sizey = 0.0
    for i in range(n):
        sizex = max(sizex, abs(cx - vx[i]))
        sizey = max(sizey, abs(cy - vy[i]))
    dirs = _dirs(vx, vy, bx, by)
    p0[2] = mods
    for i in range(n):
        p0[3, i] = 1.0 if dirs[i] else 0.0
    midx = cx + rr(st, -0.6, 0.6) * sizex
    midy = cy + rr(st, -0.6, 0.6) * sizey
    outdeg = -90.0 if out_dir else 90.0
    cap = GROW_MAX_VERTS * max(0.2, 2.0 * bleed)
    size = max(sizex, sizey)
    darker = rr(st, 0.15, 0.7)
    s_main, s_tex, s_dark = svals[0], svals[1], svals[2]
    s_bord = svals[3] if size > 0.0 else 0  # the outline's 8-bit alpha (no outline without a width)
    dirty = new_dirty()
    sd = sc.d
    sdc = sc.dcount
    sdn = sc.nl
    key = sc.tag[0] * 4  # the key of this segment's crossing marks (``span_polygon``; each flush moves it on)
    sxm = sc.xm
    sxs = sc.xs
    smit = sc.mit
    smlast = sc.mlast
    slo = sc.lo
    shi = sc.hi
    pp = _grow(p0, 1.0, st, bleed, outdeg, cap, pools, False)
    a = _scatter(p0, 0.1, st, bx, by, bb, midx, midy)
    a = _grow(a, 1.0, st, bleed, outdeg, cap, pools, False)
    sp = _scatter(a, 0.75, st, bx, by, bb, midx, midy)
    for i in range(sp.shape[1]):
        sp[3, i] = 1.0 - sp[3, i]
    q1 = pp
    q2 = pp
    q3 = pp
    lw_sum = 0.0
    lw_n = 0
    npoly = 0
    for layer in range(20):
        lw = size / 25.0 + (size / 30.0 - size / 25.0) * min(layer / 24.0, 1.0)
        lw_sum += lw * border
        lw_n += 1
        hw = 0.5 * lw * border * xf[6]  # the outline's half width on the canvas (miter joins)
        if s_bord < 2 or int(round(2.0 * hw)) >= WIDE_K:
            hw = 0.0  # no miter joins: a faint or a wide outline (``_miter_spikes``)
        if layer % 4 == 0:
            pp = _grow(pp, 1.0, st, bleed, outdeg, cap, pools, False)
        if layer % 2 == 0:
            q1 = _grow(pp, 1.0 - 0.0125 * layer, st, bleed, outdeg, cap, pools, False)
            q2 = _grow(pp, 0.7 - 0.0125 * layer, st, bleed, outdeg, cap, pools, False)
            q3 = _grow(pp, 0.4 - 0.0125 * layer, st, bleed, outdeg, cap, pools, False)
        # the polygons this segment strokes (``_layer``: all of them while the border has an alpha)
        npoly += ((3 if s_main > 0 or s_bord > 0 else 0) + (1 if scatter and (s_tex > 0 or s_bord > 0) else 0)
                  + (1 if layer % 2 == 0 and (s_dark > 0 or s_bord > 0) else 0))
        for w in range(3):
            g = _grow(q1 if w == 0 else (q2 if w == 1 else q3), 999.0, st, bleed, outdeg, cap, pools, False)
            g = _grow(g, 997.0, st, bleed, outdeg, cap, pools, False)
            _layer(sd, sdc, sdn, sxm, sxs, key, smit, smlast, slo, shi, g, s_main, _CLASS[0], dirty, xf, s_bord, hw)
        if scatter:
            g = _grow(sp, 999.0, st, bleed, outdeg, cap, pools, False)
            # the texture's polygon grows with its edge directions inverted
            g = _grow(g, 997.0, st, bleed, outdeg, cap, pools, True)
            _layer(sd, sdc, sdn, sxm, sxs, key, smit, smlast, slo, shi, g, s_tex, _CLASS[1], dirty, xf, s_bord, hw)
        if layer % 2 == 0:
            g = _grow(pp, darker, st, bleed, outdeg, cap, pools, False)
            g = _grow(g, 999.0, st, bleed, outdeg, cap, pools, False)
            _layer(sd, sdc, sdn, sxm, sxs, key, smit, smlast, slo, shi, g, s_dark, _CLASS[2], dirty, xf, s_bord, hw)
        if layer % 8 == 0 or layer == 19:
            # the border strokes of this segment's polygons (all of similar width) are added in one pass
            _flush(canvas, sc, dirty, lw_sum / lw_n * xf[6], border, holes, sizex, sizey, midx, midy, st, pig, lut,
                   work, tab, etab, e8, xf, npoly)
            key = sc.tag[0] * 4
            lw_sum = 0.0
            lw_n = 0
            npoly = 0


#: Canvas-sized buffers a render reuses for every fill: row differences (d: the per-class layer counts, summed
#: by the alpha pass as it reads them; dcount: the cover count, resolved in place when the fill has bands; dneg:
#: its negative windings' part, written from their spans' list where a segment reads the two signs apart; all
#: int32; e: the texture's holes), the horizontal box sums of the cover count (l, int32), its box mean (s; s2:
#: dneg's) (the cover counts reach ``MARGIN`` px past the canvas on every side: ``span_polygon``), and
#: per row the first and last column a layer polygon or a miter join covered since the last flush (lo, hi;
#: 1 << 30 and -(1 << 30) when none: ``_alpha_rows``), and the outlines' miter joins (mit: row differences,
#: int32, ``_miter_spikes``; mlast: per row the polygon and span that last wrote it, ``span_triangle``); the
#: crossings' marks (xm: x, xs: key; ``span_polygon``), tag[0]: the segment's number (the marks' key; from 1, so
#: no key meets the zeros a fresh scratch holds, and a big canvas's scratch is not written through), and nl:
#: the negative windings' spans (row, first column, column past the last, magnitude; ``NEG_SPANS`` of them). A
#: namedtuple, so compiled kernels cache on disk.
Scratch = namedtuple("Scratch", "d dcount e l s lo hi mit mlast dneg s2 xm xs tag nl")


#: How far past the canvas's edge the cover count (dcount, and its box sums l and mean s) is kept: outlines of
#: width up to 2 x MARGIN reaching in from polygon edges past the canvas are exact; wider ones read the count
#: beyond as its value at the margin's edge (``_resolve_box``).
MARGIN = 32

#: How many negative windings' spans a segment lists (``span_polygon``); a segment with more reads its outlines
#: from the magnitudes' count alone.
NEG_SPANS = 1 << 16


def make_scratch(height: int, width: int) -> Scratch:
    m = MARGIN
    return Scratch(np.zeros((height, width + 1), np.int32), np.zeros((height + 2 * m, width + 2 * m + 1), np.int32),
                   np.zeros((height, width + 1), np.int16), np.zeros((height + 2 * m, width + 2 * m), np.int32),
                   np.zeros((height + 2 * m, width + 2 * m)), np.full(height, 1 << 30, np.int64),
                   np.full(height, -(1 << 30), np.int64), np.zeros((height, width + 1), np.int32),
                   np.zeros((3, height + 1), np.int64), np.zeros((height + 2 * m, width + 2 * m + 1), np.int32),
                   np.zeros((height + 2 * m, width + 2 * m)), np.zeros((height + 2 * m, width + 2 * m + 1)),
                   np.zeros((height + 2 * m, width + 2 * m + 1), np.int64), np.ones(1, np.int64),
                   np.zeros((NEG_SPANS, 4), np.int32))


class FillScratch:
    """Allocated on the first fill of a render."""

    def __init__(self, height: int, width: int, work: Work | None = None):
        self.sc = make_scratch(height, width)
        self.work = work if work is not None else make_work(height, width)


@functools.lru_cache(maxsize=256)
def over_tables(svals: tuple[int, int, int, int]) -> np.ndarray:
    """The source-over tables for a fill's layer alphas, then those of the thin outlines' alphas (``_band_class``);
    fills of a painting mostly share them (112 KB each).

    Kept for 256 alpha sets (28 MB at most): a process that renders many paintings meets many sets (the 65
    pool and bench paintings use 113), and with 64 kept a second pass over them rebuilt 112 tables, 0.28 ms
    each."""
    return np.concatenate((_over_tables(np.array(svals, np.int64)), _thin_tables()))


@functools.lru_cache(maxsize=1)
def _thin_tables() -> np.ndarray:
    """The thin outlines' tables, the same for every fill: made once."""
    return _over_tables(np.array(_THIN_ALPHAS, np.int64))


def paint_fill(canvas: np.ndarray, scratch: FillScratch, vertices: np.ndarray, fill_state, rgb, seed_state,
               pools, frame: np.ndarray | None = None) -> None:
    """Watercolour-fill ``vertices`` (N x 2, canvas px) with a FillState (colour, opacity, bleed, texture...).

    ``seed_state`` is p5.brush's ``rng`` stream and ``pools`` its gaussian pools (``brush_random``); the fill
    draws from them exactly as p5.brush's ``createFill`` does. With a ``frame`` (``watercolour``'s ``xf``) the
    vertices are in the shape's own axes, where p5.brush also reads the bleed's angle."""
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    pig = np.asarray(rgb, dtype=np.float64) / 255.0
    angle = fill_state.angle
    tex = float(min(max(fill_state.texture, 0.0), 1.0))
    border = float(min(max(fill_state.border, 0.0), 1.0))
    svals = layer_alphas(float(fill_state.opacity), tex, border)
    holes = tex * 3.0 * 3.0  # p5.brush's texture strength (3 x tex), tripled for its holes
    watercolour(canvas, v[:, 0].copy(), v[:, 1].copy(), float(min(max(fill_state.bleed, 0.0), 1.0)),
                fill_state.direction != "in", angle is not None, float(angle or 0.0), svals,
                over_tables(tuple(int(x) for x in svals)), *erosion_table(holes), holes, border,
                bool(fill_state.scatter), pig, seed_state, pools, scratch.sc, LIN_LUT, scratch.work,
                NO_FRAME if frame is None else np.ascontiguousarray(frame, dtype=np.float64))


__all__ = ["paint_fill", "FillScratch"]
