"""Compiled rasterisers writing into log-transparency masks.

A mask stores ``sum(log(1 - a))`` per pixel, so stacking many low-alpha shapes
(source-over for alpha, which both p5.brush masks use) is an order-free add and
the coverage is ``1 - exp(mask)``. Pixel (i, j) has its centre at (i+0.5, j+0.5).
Every kernel clips to its buffer, so shapes far off canvas cost nothing.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import njit, njit_inline, njit_vec
from ._jit import uidx as _u


@njit_vec  # the slope of a horizontal edge divides by zero (numpy's model: inf, unused), not an error check per edge
def _row_crossings(xy, ox, oy, m, h):
    """Edge crossings of a closed polygon (``xy``: a row of x and a row of y; fills pass their (4, n) polygon
    whole), bucketed by pixel row and sorted by x within each row.

    Rows r0..r1 (within [-m, h + m): m is a margin, 0 but for the fills' cover count) hold crossings; row r's
    crossings are ``cx[counts[r - r0]:counts[r - r0 + 1]]`` with winding directions in ``cw``. r1 < r0 means
    nothing to fill. Used by ``span_polygon``.
    Each vertex's first row at or below it is taken once (an edge crosses the row centres from one end's row
    to the other's). The crossings are listed in edge order in one pass that does not branch on whether an
    edge crosses a row (a fill's edges are about a row tall, so that branch went either way at random; only
    an edge over two or more rows loops), then counted per row and moved into their row's slot (a counting
    sort that keeps edge order) and sorted by x within each row.
    """
    n = xy.shape[1]
    # (Arrays are never rebound inside a loop: numba would count references on every iteration.)
    cy = np.empty(n + 1, np.int64)
    for k in range(n):
        cy[k] = int(math.ceil(xy[1, k] - oy - 0.5))
    cy[n] = cy[0]
    rmin = max(cy.min(), -m)
    rmax = min(cy.max() - 1, h + m - 1)
    if rmax < rmin:
        return 0, -1, np.zeros(1, np.int64), np.empty(0, np.float64), np.empty(0, np.int8)
    nr = rmax - rmin + 1
    tot = 0
    for k in range(n):
        tot += abs(cy[k + 1] - cy[k])
    # the list: every edge writes its first crossing at m, and m moves on only if the edge crosses a row
    lr = np.empty(tot + 1, np.int64)
    lx = np.empty(tot + 1, np.float64)
    lw = np.empty(tot + 1, np.int8)
    m = 0
    for k in range(n):
        ca = cy[k]
        cb = cy[k + 1]
        k1 = k + 1 if k + 1 < n else 0
        xa = xy[0, k] - ox
        ya = xy[1, k] - oy
        xb = xy[0, k1] - ox
        yb = xy[1, k1] - oy
        # rows whose centre lies in [min(ya, yb), max(ya, yb)): ceil(y - 0.5) is monotone in y
        a = min(ca, cb)
        slope = (xb - xa) / (yb - ya)
        wdir = 1 if yb > ya else -1
        lr[_u(m)] = a
        lx[_u(m)] = xa + (a + 0.5 - ya) * slope
        lw[_u(m)] = wdir
        dn = abs(cb - ca)
        m += min(dn, 1)
        for j in range(1, dn):  # an edge over two or more row centres
            r = a + j
            lr[_u(m)] = r
            lx[_u(m)] = xa + (r + 0.5 - ya) * slope
            lw[_u(m)] = wdir
            m += 1
    counts = np.zeros(nr + 1, np.int64)
    for i in range(m):
        r = lr[i]
        # a row off the canvas counts nowhere (adds 0 to a clamped slot)
        counts[_u(min(max(r - rmin + 1, 0), nr))] += (r >= rmin) & (r <= rmax)
    for r in range(nr):
        counts[r + 1] += counts[r]
    t = counts[nr]
    if t == 0:
        return 0, -1, np.zeros(1, np.int64), np.empty(0, np.float64), np.empty(0, np.int8)
    cx = np.empty(t, np.float64)
    cw = np.empty(t, np.int8)
    fillp = counts[:nr].copy()
    for i in range(m):
        r = lr[i]
        if r < rmin or r > rmax:
            continue
        ur = _u(r - rmin)
        p = _u(fillp[ur])
        cx[p] = lx[i]
        cw[p] = lw[i]
        fillp[ur] = p + 1
    for r in range(nr):  # insertion sort per row (rows hold a handful of crossings)
        s = counts[r]
        e = counts[r + 1]
        for i in range(s + 1, e):
            vx = cx[_u(i)]
            vw = cw[_u(i)]
            j = i - 1
            while j >= s and cx[_u(j)] > vx:
                cx[_u(j + 1)] = cx[_u(j)]
                cw[_u(j + 1)] = cw[_u(j)]
                j -= 1
            cx[_u(j + 1)] = vx
            cw[_u(j + 1)] = vw
    return rmin, rmax, counts, cx, cw


@njit_inline
def _cover_edge(acc, xa, ya, xb, yb, h, w):
    """Add one edge's signed area to ``acc`` ((h, w + 2)): after a prefix sum along a row, each pixel holds the
    winding-weighted area of itself that the polygon covers (the accumulation rasteriser of font-rs). The edge
    is in the buffer's coordinates and lies within x in [0, w]; rows outside [0, h) take nothing."""
    if ya == yb:
        return
    d = 1.0
    if ya > yb:
        xa, ya, xb, yb = xb, yb, xa, ya
        d = -1.0
    dxdy = (xb - xa) / (yb - ya)
    r0 = max(int(math.floor(ya)), 0)
    r1 = min(int(math.ceil(yb)), h)
    for r in range(r0, r1):
        ta = max(float(r), ya)
        tb = min(float(r + 1), yb)
        dy = tb - ta
        if dy <= 0.0:
            continue
        x = xa + (ta - ya) * dxdy
        xn = xa + (tb - ya) * dxdy
        if r + 1 >= yb:
            xn = xb
        x0 = max(min(x, xn), 0.0)
        x1 = min(max(x, xn), float(w))
        dd = dy * d
        ur = _u(r)
        x0f = math.floor(x0)
        i0 = int(x0f)
        x1c = math.ceil(x1)
        i1 = int(x1c)
        if i1 <= i0 + 1:  # within one pixel: the part right of the edge's mid-x goes to that pixel
            xm = 0.5 * (x0 + x1) - x0f
            acc[ur, _u(i0)] += dd * (1.0 - xm)
            acc[ur, _u(i0 + 1)] += dd * xm
        else:  # over several pixels: the trapezoids the edge cuts from each
            s = 1.0 / (x1 - x0)
            f0 = x0 - x0f
            a0 = 0.5 * s * (1.0 - f0) * (1.0 - f0)
            f1 = x1 - x1c + 1.0
            am = 0.5 * s * f1 * f1
            acc[ur, _u(i0)] += dd * a0
            if i1 == i0 + 2:
                acc[ur, _u(i0 + 1)] += dd * (1.0 - a0 - am)
            else:
                a1 = s * (1.5 - f0)
                acc[ur, _u(i0 + 1)] += dd * (a1 - a0)
                for i in range(i0 + 2, i1 - 1):
                    acc[ur, _u(i)] += dd * s
                a2 = a1 + (i1 - i0 - 3) * s
                acc[ur, _u(i1 - 1)] += dd * (1.0 - a2 - am)
            acc[ur, _u(i1)] += dd * am


@njit
def fill_polygon(buf, xs, ys, val, ox, oy, dirty):
    """Fill a polygon into a log-transparency mask as the canvas's antialiased ``fill()`` does: a pixel the
    polygon covers wholly adds ``val`` (``log(1 - a)``), one on its rim ``log(1 - a * cover)`` with ``cover`` the
    part of its area inside (nonzero winding; an area covered twice counts once).

    ``buf`` covers canvas pixels [ox, ox+w) x [oy, oy+h); ``dirty`` (x0, y0, x1, y1) grows. The areas are summed
    over the polygon's box clipped to the buffer; an edge's parts left or right of it run along its side (what
    they cover there is the same), so the cost is vertices + the rows the edges cross + the box's area.
    """
    h, w = buf.shape
    n = xs.shape[0]
    if n < 3:
        return
    xmin = math.inf
    xmax = -math.inf
    ymin = math.inf
    ymax = -math.inf
    for k in range(n):
        x = xs[k] - ox
        y = ys[k] - oy
        if not (abs(x) < 1e15 and abs(y) < 1e15):
            return  # a NaN or far-off vertex: no path the canvas would fill here
        xmin = min(xmin, x)
        xmax = max(xmax, x)
        ymin = min(ymin, y)
        ymax = max(ymax, y)
    c0 = max(int(math.floor(xmin)), 0)
    c1 = min(int(math.ceil(xmax)), w)
    q0 = max(int(math.floor(ymin)), 0)
    q1 = min(int(math.ceil(ymax)), h)
    if c1 <= c0 or q1 <= q0:
        return
    bw = c1 - c0
    bh = q1 - q0
    acc = np.zeros((bh, bw + 2))
    fw = float(bw)
    for k in range(n):
        k1 = k + 1 if k + 1 < n else 0
        xa = xs[k] - ox - c0
        ya = ys[k] - oy - q0
        xb = xs[k1] - ox - c0
        yb = ys[k1] - oy - q0
        # split the edge where it leaves [0, bw] across: each part is then clamped to the box's side
        ta = 0.0
        t0 = 2.0
        t1 = 2.0
        if xb != xa:
            t0 = (0.0 - xa) / (xb - xa)
            t1 = (fw - xa) / (xb - xa)
            if t0 > t1:
                t0, t1 = t1, t0
        px = xa
        py = ya
        for j in range(3):
            t = t0 if j == 0 else (t1 if j == 1 else 1.0)
            if t <= ta or t > 1.0:
                continue
            nx = xb if t == 1.0 else xa + (xb - xa) * t
            ny = yb if t == 1.0 else ya + (yb - ya) * t
            _cover_edge(acc, min(max(px, 0.0), fw), py, min(max(nx, 0.0), fw), ny, bh, bw)
            px = nx
            py = ny
            ta = t
    a = -math.expm1(val)
    cmin = w
    cmax = -1
    rmin = h
    rmax = -1
    for q in range(bh):
        s = 0.0
        uq = _u(q + q0)
        for i in range(bw):
            s += acc[_u(q), _u(i)]
            cov = min(abs(s), 1.0)
            if cov < 1e-9:
                continue
            c = i + c0
            if cov > 1.0 - 1e-9:
                buf[uq, _u(c)] += val
            else:
                buf[uq, _u(c)] += math.log1p(-a * cov)
            cmin = min(cmin, c)
            cmax = max(cmax, c)
            rmin = min(rmin, q + q0)
            rmax = q + q0
    if rmax < 0:
        return
    if cmin + ox < dirty[0]:
        dirty[0] = cmin + ox
    if rmin + oy < dirty[1]:
        dirty[1] = rmin + oy
    if cmax + 1 + ox > dirty[2]:
        dirty[2] = cmax + 1 + ox
    if rmax + 1 + oy > dirty[3]:
        dirty[3] = rmax + 1 + oy


@njit_inline
def _placeable(x, y):
    """Whether a stamp at (x, y) can be placed: a GPU draws no point at a NaN position (a walker that turned by
    ``lut_index``'s NaN entry), and a stamp's pixel range must never come from one, nor from a position beyond
    int64 (far off any canvas)."""
    return abs(x) < 1e15 and abs(y) < 1e15


@njit
def _point_f(px, py, x, y, inv):
    dx = (px + 0.5 - x) * inv
    dy = (py + 0.5 - y) * inv
    return math.sqrt(dx * dx + dy * dy)


@njit
def _quad_fw(ce, qe, x, y, inv):
    """The point coordinate at three pixels of the 2x2 quad whose first pixel is (ce, qe) (that one, the one right
    of it, the one below it) and the quad's ``fwidth`` from them, as Chromium's GPU (SwiftShader) takes it:
    coarse derivatives, one pair per quad, both read at its first pixel:
    |f(ce + 1, qe) - f(ce, qe)| + |f(ce, qe + 1) - f(ce, qe)|. (Per-pixel differences, f(c ^ 1, q) - f(c, q),
    differ on the quad's three other pixels: a unit stamp there got 0.96 of p5.brush's coverage, measured
    on all 1024 1/16-px offsets and parities; with the quad's first pixel all 1024 agree.)"""
    f00 = _point_f(ce, qe, x, y, inv)
    f10 = _point_f(ce + 1, qe, x, y, inv)
    f01 = _point_f(ce, qe + 1, x, y, inv)
    return f00, f10, f01, abs(f10 - f00) + abs(f01 - f00)


@njit
def _coarse_fw(c, q, x, y, inv):
    """``fwidth`` of the point coordinate at pixel (c, q): its quad's (``_quad_fw``)."""
    return _quad_fw(c & ~1, q & ~1, x, y, inv)[3]


@njit_inline
def _snap16(v):
    """A coordinate snapped to the GPU's 1/16-pixel grid, as Chromium places a point and its square's edges."""
    return math.floor(v * 16.0 + 0.5) * 0.0625


@njit
def _coverage(f, fw):
    """``s = 1 - smoothstep(0.5 - fw, 0.5 + fw, f)`` for a pixel at point coordinate ``f``; 0.0 where it adds nothing."""
    lo = 0.5 - fw
    hi = 0.5 + fw
    if f >= hi:
        return 0.0
    if f <= lo:
        return 1.0
    t = (f - lo) / (hi - lo)
    s = 1.0 - t * t * (3.0 - 2.0 * t)
    if s < 0.01:
        return 0.0
    return s


@njit_vec
def _stamp_coverage(sv, c0, c1, q0, q1, x, y, inv):
    """``_coverage`` of pixels c0..c1 of rows q0..q1 under a stamp of size >= 4, into ``sv[q - q0, :c1 - c0 + 1]``
    (float32): the whole stamp in one call, its rows one vector loop each.

    There ``fw`` is the analytic gradient of the point coordinate, ``a / f`` with ``a = (|dx| + |dy|) inv^2``,
    at each pixel, not the GPU's coarse difference at the quad's first pixel (``_coarse_fw``): a marker line's
    ink comes out 1.2% lighter than Chromium's (a unit stamp's was 4%, so those take the coarse one), and the
    coarse difference in vector loops cost 20% on marker paintings (it needs the quad's other pixels: three
    roots a quad, or loops that read across lanes and did not vectorise).
    Multiplied through by f, the smoothstep's tests and ramp need one division (by ``2a``) instead of two:
    with ``p = f^2 - f/2``, the pixel is fully in where ``p + a <= 0`` (the stamp's centre pixel, f = 0,
    included), out where ``p - a >= 0``, and in between ``t = (p + a) / 2a``. In float32 as the GPU's
    fragment shader runs it, so a vector holds 16 pixels: a 12 px marker stamp's row is one vector, and the
    loop is division- and sqrt-bound (it was 2 divisions and a sqrt per 8 pixels in float64).
    """
    one = np.float32(1.0)
    half = np.float32(0.5)
    inv32 = np.float32(inv)
    inv2 = np.float32(inv * inv)
    xs = np.float32(c0 + 0.5 - x)
    for q in range(q0, q1 + 1):
        dy = np.float32((q + 0.5 - y) * inv)
        ady = np.float32(abs(q + 0.5 - y))
        uq = _u(q - q0)
        for i in range(c1 - c0 + 1):
            dxx = xs + np.float32(i)
            dx = dxx * inv32
            f2 = dx * dx + dy * dy
            f = np.sqrt(f2)
            a = (abs(dxx) + ady) * inv2
            p = f2 - half * f
            t = (p + a) / (a + a)
            s = one - t * t * (np.float32(3.0) - np.float32(2.0) * t)
            s = np.float32(0.0) if s < np.float32(0.01) else s
            s = np.float32(0.0) if p - a >= np.float32(0.0) else s
            sv[uq, _u(i)] = one if p + a <= np.float32(0.0) else s  # last: at f = 0 both tests hold (a = 0): in


@njit_inline
def _over8(d, a):
    """One stamp of alpha ``a`` over a brush-mask pixel of 8-bit alpha ``d`` (0-255), as p5.brush's mask
    framebuffer (p5's default, 8 bits a channel) keeps it: the blend (ONE_MINUS_DST_ALPHA, ONE) adds
    a x (1 - d / 255), rounded to the nearest 1/255. A faint stamp (the marker's ~0.003) then adds nothing
    once a x (255 - d) < 0.5: a marker line saturates at about a third, as in p5.brush, not at 0.7."""
    # the fragment's alpha (stamp alpha x coverage) is clamped to 1 before the blend, as a GPU does for an 8-bit
    # target: a stamp's alpha over 1 (a rotring's pressure takes it to ~1.23) is not clamped first, so its
    # antialiased rim gets min(1, alpha x coverage), as in Chromium (a NaN still blends in as NaN)
    return _add8(d, 1.0 if a > 1.0 else a)


@njit_inline
def _add8(d, a):
    """``_over8`` for an alpha known not to pass 1 (no clamp: a big stamp's row then blends with no select)."""
    # np.floor keeps the value a double: math.floor's integer cost two conversions per stamped pixel
    return d + np.floor(a * (255.0 - d) + 0.5)


@njit
def _unit_coverage():
    """``stamp_discs``' coverage of a unit stamp's pixel, by quad parity (c & 1, q & 1) and the pixel centre's
    offset from the stamp in 1/16 px (-8..7 each way, stored +8): the same ``_point_f`` and ``_coverage`` the
    general path runs, on the same exact differences (positions are on the 1/16 grid), so the same values."""
    out = np.empty(1024)
    for par in range(4):
        c = 2 + par // 2
        q = 2 + par % 2
        for i in range(16):
            for j in range(16):
                x = c + 0.5 - (i - 8) / 16.0
                y = q + 0.5 - (j - 8) / 16.0
                out[par * 256 + i * 16 + j] = _coverage(_point_f(c, q, x, y, 1.0), _coarse_fw(c, q, x, y, 1.0))
    return out


_UNIT = _unit_coverage()


@njit
def stamp_discs(buf, xs, ys, diams, alphas, dirty):
    """Brush stamps as p5.brush's WebGL points, blended into a canvas-sized 8-bit alpha mask (``_over8``).

    A point of size ``max(d, 1)`` covers the pixels whose centres lie in its (half-open) square; each gets
    ``1 - smoothstep(0.5 - fw, 0.5 + fw, |coord - 0.5|)`` with ``fw`` the coarse 2x2-quad finite difference
    Chromium's GPU takes for ``fwidth`` (``_coarse_fw``), times the stamp's alpha, clamped to 1. For sub-pixel
    stamps (every thin pencil) fw is ~1, so a stamp gives its pixel about 0.45-0.8 of its alpha, not all of it:
    that is why thin lines in p5.brush are lighter than full-strength dots. Big stamps (4 px and up) take their
    coverage from ``_stamp_coverage``, with the analytic gradient at each pixel for fw.
    """
    h, w = buf.shape
    # the big stamps' coverage, a row per stamp row: room for the biggest stamp (clipped to the canvas), and its
    # rows padded to whole 16-wide vectors
    dmax = 0.0
    for k in range(diams.shape[0]):
        dmax = max(dmax, diams[k])
    span = min(int(dmax) + 2, max(h, w)) if dmax >= 4.0 else 1
    sv = np.empty((span, span + 16), np.float32)
    for k in range(xs.shape[0]):
        x = xs[k]
        y = ys[k]
        a = alphas[k]
        if a <= 0.0 or not _placeable(x, y):
            continue
        size = max(diams[k], 1.0)
        inv = 1.0 / size
        r = 0.5 * size
        # the GPU snaps a point's position to its 1/16-pixel grid (measured in Chromium: a line on a pixel edge
        # inks the pixel above/left of it unless it lies more than ~1/32 px past the edge)
        x = _snap16(x)
        y = _snap16(y)
        if size == 1.0:
            # a unit stamp (every thin pencil's) covers the one pixel (c, q) below, and its coverage depends only
            # on its 1/16-px offset from that pixel's centre and on the pixel's quad parity: a table lookup
            c = int(math.ceil(x)) - 1
            q = int(math.ceil(y)) - 1
            if c < 0 or c >= w or q < 0 or q >= h:
                continue
            dirty[0] = min(dirty[0], c)
            dirty[1] = min(dirty[1], q)
            dirty[2] = max(dirty[2], c + 1)
            dirty[3] = max(dirty[3], q + 1)
            s = _UNIT[_u(((c & 1) * 2 + (q & 1)) * 256 + int((c + 1.0 - x) * 16.0) * 16 + int((q + 1.0 - y) * 16.0))]
            if s != 0.0:
                buf[q, c] = _over8(buf[q, c], a * s)
            continue
        # the pixels whose centres lie in the half-open square [x - r, x + r) x [y - r, y + r), as a GPU
        # rasterises a point: a 1 px stamp centred on a pixel edge lands in one pixel, not in both. The square's
        # edges, like the centre, are snapped to the 1/16-px grid first (measured in Chromium: a 1.6 px stamp at
        # y = 20.3125 spans [19.5125, 21.1125) and inks row 19, whose centre 19.5 lies on the snapped edge)
        c0 = max(int(math.ceil(_snap16(x - r) - 0.5)), 0)
        c1 = min(int(math.ceil(_snap16(x + r) - 0.5)) - 1, w - 1)
        q0 = max(int(math.ceil(_snap16(y - r) - 0.5)), 0)
        q1 = min(int(math.ceil(_snap16(y + r) - 0.5)) - 1, h - 1)
        if c1 < c0 or q1 < q0:
            continue
        if c0 < dirty[0]:
            dirty[0] = c0
        if q0 < dirty[1]:
            dirty[1] = q0
        if c1 + 1 > dirty[2]:
            dirty[2] = c1 + 1
        if q1 + 1 > dirty[3]:
            dirty[3] = q1 + 1
        if size < 4.0:
            # a quad at a time: its fw (``_quad_fw``) reads the point coordinate at three of its pixels, which
            # are those pixels' own, so a quad costs four roots where a pixel at a time took three a pixel
            for qe in range(q0 & ~1, q1 + 1, 2):
                for ce in range(c0 & ~1, c1 + 1, 2):
                    f00, f10, f01, fw = _quad_fw(ce, qe, x, y, inv)
                    for q in range(max(qe, q0), min(qe + 1, q1) + 1):
                        for c in range(max(ce, c0), min(ce + 1, c1) + 1):
                            if q == qe:
                                f = f00 if c == ce else f10
                            else:
                                f = f01 if c == ce else _point_f(c, q, x, y, inv)
                            s = _coverage(f, fw)
                            if s != 0.0:  # a NaN coverage still blends in (NaN), as it always did
                                buf[q, c] = _over8(buf[q, c], a * s)
            continue
        # coverage over whole 16-wide float32 vectors (the spare columns are computed, never blended): a stamp
        # row is 8-16 px, and the scalar remainder of the vector loop cost as much as the vectors
        c1v = c0 + ((c1 - c0 + 16) & ~15) - 1
        _stamp_coverage(sv, c0, c1v, q0, q1, x, y, inv)
        for q in range(q0, q1 + 1):
            # every pixel of the row is blended: a zero coverage adds floor(0.5) = 0, so the loop needs no branch
            # and vectorises
            uq = _u(q)
            us = _u(q - q0)
            if a <= 1.0:  # alpha x coverage needs no clamp (``_over8``): without its select, big stamps ~5% faster
                for i in range(c1 - c0 + 1):
                    c = _u(c0 + i)
                    buf[uq, c] = _add8(buf[uq, c], a * sv[us, _u(i)])
            else:
                for i in range(c1 - c0 + 1):
                    c = _u(c0 + i)
                    buf[uq, c] = _over8(buf[uq, c], a * sv[us, _u(i)])


@njit
def stamp_tips(buf, xs, ys, sizes, alphas, angles, tip, dirty):
    """Custom-brush stamps: a sampled alpha grid (rows x cols, 0-1) scaled to ``size`` px and rotated."""
    h, w = buf.shape
    th, tw = tip.shape
    for k in range(xs.shape[0]):
        x = xs[k]
        y = ys[k]
        a = alphas[k]
        s = sizes[k]
        if a <= 0.0 or s <= 0.0 or not _placeable(x, y):
            continue
        if s < 1.0:
            s = 1.0
        ca = math.cos(angles[k])
        sa = math.sin(angles[k])
        r = 0.7072 * s
        c0 = max(int(math.floor(x - r)), 0)
        c1 = min(int(math.ceil(x + r)), w - 1)
        q0 = max(int(math.floor(y - r)), 0)
        q1 = min(int(math.ceil(y + r)), h - 1)
        if c1 < c0 or q1 < q0:
            continue
        if c0 < dirty[0]:
            dirty[0] = c0
        if q0 < dirty[1]:
            dirty[1] = q0
        if c1 + 1 > dirty[2]:
            dirty[2] = c1 + 1
        if q1 + 1 > dirty[3]:
            dirty[3] = q1 + 1
        for q in range(q0, q1 + 1):
            dy = q + 0.5 - y
            for c in range(c0, c1 + 1):
                dx = c + 0.5 - x
                u = (ca * dx + sa * dy) / s + 0.5
                v = (-sa * dx + ca * dy) / s + 0.5
                if u < 0.0 or u >= 1.0 or v < 0.0 or v >= 1.0:
                    continue
                ta = tip[int(v * th), int(u * tw)]
                if ta <= 0.0:
                    continue
                buf[q, c] = _over8(buf[q, c], a * ta)


@njit_inline
def _grow_box(dirty, k, c0, r0, c1, r1):
    """Widen the box dirty[k:k + 4] (x0, y0, x1, y1, ends exclusive) to hold columns c0..c1 of rows r0..r1."""
    dirty[k] = min(dirty[k], c0)
    dirty[k + 1] = min(dirty[k + 1], r0)
    dirty[k + 2] = max(dirty[k + 2], c1 + 1)
    dirty[k + 3] = max(dirty[k + 3], r1 + 1)


#: Every how many rows ``span_polygon`` marks its crossings (a shared edge is a run of them: one in this many
#: finds it, at this fraction of the marks' cost).
MARK_EVERY = 8


@njit
def span_polygon(dbuf, dcount, nl, xm, xs, key, xy, val, dirty, lo, hi):
    """Like ``fill_polygon`` but writes row-difference arrays (+val at a span's start, -val after its end).

    A prefix sum along each row later turns ``dbuf`` into the sum of ``val`` over the polygons covering each
    pixel (nonzero winding, as canvas ``fill()``), and ``dcount`` into the sum of their winding numbers'
    magnitudes; cost is per row crossed, not per pixel covered. ``dcount`` is what the fills' outlines are
    read from (canvas ``stroke()`` strokes every edge of the path, also one inside the filled area where a
    polygon crosses itself): every edge is a unit step in it, where the cover (0 or 1) steps only at the
    filled area's rim. For a polygon that does not cross itself the two are the same. The spans of negative
    windings are also listed in ``nl`` (row, first column, column past the last, magnitude, in ``dcount``'s
    indices; ``dirty[16]`` counts them, past ``nl``'s length they are only counted) and ``dirty[10:14]`` grows
    to their box.

    A lobe wound one way and one wound the other that share an edge (a self-crossing shape and its trimmed
    layer, which keeps the one lobe and closes it with a chord) step the magnitudes' sum up and down at the
    same place: it is level across their edge and both outlines vanished. Such a shared edge gives bitwise-equal
    crossings, so every ``MARK_EVERY``th row's crossings are marked at their pixel (``xm``: the x, ``xs``:
    ``key`` plus 2 if the edge runs down and 1 if it borders a negative winding; ``key`` < 0: no marks), and
    ``dirty[9]`` counts the crossings that meet one of the other sign's at the same x running the same way
    (``dirty[14:16]``: their first and last row); the flush then reads the two signs apart there. Counting them
    apart always was 7% of a fill painting's time: small loops wound the other way are in nearly every
    segment, shared edges in few.

    ``dbuf`` is (h, w + 1), integer or float; ``dcount`` reaches a margin m past it on every side
    ((h + 2m, w + 2m + 1), pixel (r, c) at [r + m, c + m]): a polygon's edge just past the canvas's edge still
    has its outline inside it (p5.brush's stroke reaches in from there). ``lo`` and ``hi`` (one per canvas row) grow
    to each row's first and last covered column, so the passes over the pixels can skip what no polygon reached (a
    thin or round shape leaves much of its bounding box empty); a span wholly in the margin counts as covering the
    canvas pixel nearest it (its outline may reach in). ``dirty`` is the canvas's box of the spans (x0, y0, x1, y1),
    then the margin's (the same in ``dcount``'s indices), which holds the canvas's.
    """
    h = dbuf.shape[0]
    w = dbuf.shape[1] - 1
    m = (dcount.shape[0] - h) // 2
    if xy.shape[1] < 3:
        return
    r0, r1, counts, cx, cw = _row_crossings(xy, 0.0, 0.0, m, h)
    cmin = w
    cmax = -1
    rmin = h
    rmax = -1
    gmin = w + 2 * m
    gmax = -1
    grmin = h + 2 * m
    grmax = -1
    hits = 0
    hr0 = h + 2 * m
    hr1 = -1
    nk = dirty[16]
    ncap = nl.shape[0]
    nmin = w + 2 * m
    nmax = -1
    nrmin = h + 2 * m
    nrmax = -1
    for r in range(r1 - r0 + 1):
        s = counts[r]
        e = counts[r + 1]
        if e - s < 2:
            continue
        row = r + r0
        ug = _u(row + m)
        canvas_row = row >= 0 and row < h
        wind = 0
        start = 0.0
        if key >= 0 and row % MARK_EVERY == 0:  # the row's crossings marked (``wind`` restarts after)
            for i in range(s, e):
                prev = wind
                wind += cw[_u(i)]
                mk = key + (2 if cw[_u(i)] > 0 else 0) + (1 if min(prev, wind) < 0 else 0)
                uc = _u(min(max(int(math.ceil(cx[_u(i)] - 0.5)), -m), w + m) + m)
                if xs[ug, uc] == (mk ^ 1) and xm[ug, uc] == cx[_u(i)]:
                    hits += 1
                    hr0 = min(hr0, row + m)
                    hr1 = row + m
                xs[ug, uc] = mk
                xm[ug, uc] = cx[_u(i)]
            wind = 0
        for i in range(s, e - 1):
            prev = wind
            wind += cw[_u(i)]
            if prev == 0 and wind != 0:
                start = cx[_u(i)]
            if wind != 0:  # the interval to the next crossing, at its winding's magnitude
                c0 = max(int(math.ceil(cx[_u(i)] - 0.5)), -m)
                c1 = min(int(math.ceil(cx[_u(i + 1)] - 0.5)) - 1, w + m - 1)
                if c1 >= c0:
                    aw = abs(wind)
                    dcount[ug, _u(c0 + m)] += aw
                    dcount[ug, _u(c1 + 1 + m)] -= aw
                    if wind < 0:
                        if nk < ncap:
                            nl[_u(nk), 0] = row + m
                            nl[_u(nk), 1] = c0 + m
                            nl[_u(nk), 2] = c1 + 1 + m
                            nl[_u(nk), 3] = aw
                        nk += 1
                        nmin = min(nmin, c0 + m)
                        nmax = max(nmax, c1 + m)
                        nrmin = min(nrmin, row + m)
                        nrmax = max(nrmax, row + m)
                    gmin = min(gmin, c0 + m)
                    gmax = max(gmax, c1 + m)
                    grmin = min(grmin, row + m)
                    grmax = max(grmax, row + m)
                    if c1 < 0 or c0 >= w or not canvas_row:
                        # wholly in the margin: its outline (canvas stroke(), half a width each side) can reach
                        # onto the canvas where no filled span of the row lies. Mark the canvas pixel nearest
                        # it as covered, so the flush's region and rows (lo, hi, which ``_alpha_rows`` widens
                        # by the outline's reach) hold that reach; otherwise an edge just past the canvas whose
                        # rows had nothing on it drew no outline (p5.brush paints a strip along the edge)
                        rn = min(max(row, 0), h - 1)
                        p0 = min(max(c0, 0), w - 1)
                        p1 = min(max(c1, 0), w - 1)
                        lo[_u(rn)] = min(lo[_u(rn)], p0)
                        hi[_u(rn)] = max(hi[_u(rn)], p1)
                        cmin = min(cmin, p0)
                        cmax = max(cmax, p1)
                        rmin = min(rmin, rn)
                        rmax = max(rmax, rn)
                        # and the margin's box holds it, as it holds every canvas span (the flush resolves the
                        # outlines over that box and reads them within it: a canvas pixel past it wrote past the
                        # alpha pass's row buffer)
                        gmin = min(gmin, p0 + m)
                        gmax = max(gmax, p1 + m)
                        grmin = min(grmin, rn + m)
                        grmax = max(grmax, rn + m)
                if wind + cw[_u(i + 1)] == 0 and canvas_row:  # the filled span closes at the next crossing
                    c0 = max(int(math.ceil(start - 0.5)), 0)
                    c1 = min(int(math.ceil(cx[_u(i + 1)] - 0.5)) - 1, w - 1)
                    if c1 >= c0:
                        ur = _u(row)
                        dbuf[ur, _u(c0)] += val
                        dbuf[ur, _u(c1 + 1)] -= val
                        lo[ur] = min(lo[ur], c0)
                        hi[ur] = max(hi[ur], c1)
                        cmin = min(cmin, c0)
                        cmax = max(cmax, c1)
                        rmin = min(rmin, row)
                        rmax = row
    if rmax >= 0:
        _grow_box(dirty, 0, cmin, rmin, cmax, rmax)
    if grmax >= 0:
        _grow_box(dirty, 4, gmin, grmin, gmax, grmax)
    dirty[16] = nk
    if hits > 0:
        dirty[9] += hits
        dirty[14] = min(dirty[14], hr0)
        dirty[15] = max(dirty[15], hr1)
    if nrmax >= 0:
        _grow_box(dirty, 10, nmin, nrmin, nmax, nrmax)


@njit_inline
def span_disc(dbuf, x, y, radius, val, x0, y0, x1, y1):
    """A hard disc into a row-difference array (see ``span_polygon``), clipped to [x0, x1) x [y0, y1) (within
    the buffer): a prefix sum from x0 reads it there as the whole disc.

    Only the rows whose centre lies within the disc are visited (|q + 0.5 - y| <= r), so no row is tested
    for missing the chord: scanning the rows the disc's box touches and skipping those its chord misses was a
    branch mispredicted on every tiny disc (fills draw hundreds of texture discs per flush, most a pixel or two)."""
    q0 = max(int(math.ceil(y - radius - 0.5)), y0)
    q1 = min(int(math.floor(y + radius - 0.5)), y1 - 1)
    r2 = radius * radius
    for q in range(q0, q1 + 1):
        dy = q + 0.5 - y
        half = math.sqrt(max(r2 - dy * dy, 0.0))
        a = max(int(math.ceil(x - half - 0.5)), x0)
        b = min(int(math.floor(x + half - 0.5)), x1 - 1)
        if b >= a:
            dbuf[q, a] += val
            dbuf[q, b + 1] -= val


@njit_inline
def span_triangle(mit, x0, y0, x1, y1, x2, y2, bx0, by0, bx1, by1, lo, hi, dirty, last, pid):
    """+1 over the pixel centres inside a triangle into the row differences ``mit`` (clipped to the pixel box
    [bx0, bx1) x [by0, by1), which must lie on the canvas), each
    span as ``span_polygon`` takes them (columns whose centre lies in [xl, xr), rows whose centre in [y0, y2));
    ``lo``, ``hi`` and the box ``dirty[0:4]`` grow to hold it, and ``dirty[8]`` is set. A triangle is convex: one
    span per row, from its two edges there, without sorting crossings (``fill._miter_spikes`` draws thousands).

    The triangles of one shape (id ``pid``) are a union, as the canvas fills one path: ``last[0, r]`` holds the id
    of the shape that last wrote row r and ``last[1:3, r]`` that span's columns; a span that overlaps or touches it
    adds only its columns past it (exact for the runs of neighbouring triangles a shape's outline makes)."""
    if y1 < y0:  # the corners sorted by y
        x0, y0, x1, y1 = x1, y1, x0, y0
    if y2 < y0:
        x0, y0, x2, y2 = x2, y2, x0, y0
    if y2 < y1:
        x1, y1, x2, y2 = x2, y2, x1, y1
    r0 = max(int(math.ceil(y0 - 0.5)), by0)  # the rows whose centre lies in [y0, y2)
    r1 = min(int(math.ceil(y2 - 0.5)), by1)
    if r1 <= r0:
        return
    s02 = (x2 - x0) / (y2 - y0)
    s01 = (x1 - x0) / (y1 - y0) if y1 > y0 else 0.0
    s12 = (x2 - x1) / (y2 - y1) if y2 > y1 else 0.0
    cmin = bx1
    cmax = -1
    rmin = by1
    rmax = -1
    for r in range(r0, r1):
        yc = r + 0.5
        xa = x0 + (yc - y0) * s02
        xb = x0 + (yc - y0) * s01 if yc < y1 else x1 + (yc - y1) * s12
        c0 = max(int(math.ceil(min(xa, xb) - 0.5)), bx0)
        c1 = min(int(math.ceil(max(xa, xb) - 0.5)) - 1, bx1 - 1)
        if c1 < c0:
            continue
        ur = _u(r)
        if last[0, ur] == pid and c0 <= last[2, ur] + 1 and c1 >= last[1, ur] - 1:
            p0 = last[1, ur]
            p1 = last[2, ur]
            if c0 < p0:
                mit[ur, _u(c0)] += 1
                mit[ur, _u(p0)] -= 1
            if c1 > p1:
                mit[ur, _u(p1 + 1)] += 1
                mit[ur, _u(c1 + 1)] -= 1
            last[1, ur] = min(c0, p0)
            last[2, ur] = max(c1, p1)
        else:
            mit[ur, _u(c0)] += 1
            mit[ur, _u(c1 + 1)] -= 1
            last[0, ur] = pid
            last[1, ur] = c0
            last[2, ur] = c1
        lo[ur] = min(lo[ur], c0)
        hi[ur] = max(hi[ur], c1)
        cmin = min(cmin, c0)
        cmax = max(cmax, c1)
        rmin = min(rmin, r)
        rmax = r
    if rmax >= 0:
        _grow_box(dirty, 0, cmin, rmin, cmax, rmax)
        dirty[8] = 1
