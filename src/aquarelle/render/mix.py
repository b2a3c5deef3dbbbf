"""Compositing a mask onto the canvas with p5.brush's Kubelka-Munk pigment mix.

p5.brush blends every mask into the canvas with spectral.js: both colours are
lifted to 38-band reflectance, mixed as K/S weighted by concentration
(t^2 x luminance), and brought back to sRGB, so red over cream turns pink and
blue over yellow turns green instead of grey. We run the same maths, compiled
and in float32 as the shader does, on 24 bands (the flat ends of spectral.js's
38 merged: ``BAND_GROUPS``), behind a per-composite cache keyed by (background
colour, t) so the many pixels that share both cost one lookup; the misses are
mixed in batches, many at once on the vector units (``_mix_batch``).
Fills add the shader's edge term (a blurred smoothstep of the mask gradient:
darker rims; strongest on the mask's outer edge, where the shader's early return
leaves lanes reading 0: ``_dead_lanes``); brush masks darken the pigment where
the mask saturates above 0.7, as the shader does.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from . import _spectral
from ._jit import njit, njit_fast, njit_inline, njit_vec
from ._jit import uidx as _u

#: spectral.js's 38 bands, band-last (a row per basis colour / CMF channel): the reference the merged tables
#: below are measured against.
BASIS_FULL = np.ascontiguousarray(np.asarray(_spectral.BASIS, dtype=np.float64).T)  # (7, 38) w c m y r g b
CMF_FULL = np.ascontiguousarray(np.asarray(_spectral.CMF, dtype=np.float64).T)  # (3, 38) x y z
#: Bands merged at the two ends of the spectrum, where the seven basis reflectances are nearly flat and the
#: colour-matching weights small: bands 0-4 and 27-37 become one band each (their CMF weights summed, their
#: reflectances averaged with those weights), the 22 between stay. 24 bands fill three 8-wide float32 vectors
#: where 38 needed six (padded to 48): a background spectrum costs 7 instead of 11 ns, a mix a little less, and
#: the mix-heavy paintings render 7-15% faster. Of the groupings into 24 contiguous groups this one moves the
#: basis least (a dynamic programme over the boundaries). Over 400k random (background, pigment, t) mixes it
#: changes 1 in 4000 by one 8-bit level, none by more (20 bands: 3% changed; 16 bands: 23%, by up to 16 levels).
#: Over the 66 parity paintings it moves 0-0.4% of pixels, most by one level; chains of dark strokes amplify a
#: few (0.02% of ``sky_storm_scribble``) to 3-9 levels, about as much as mixing in float32 instead of float64
#: does (0.6% of that painting's pixels moved, 0.015% by 3-9 levels).
BAND_GROUPS = [(0, 5)] + [(i, i + 1) for i in range(5, 27)] + [(27, 38)]


def _merge_bands(groups):
    w = CMF_FULL.sum(axis=0)
    basis = np.stack([(BASIS_FULL[:, a:b] * w[a:b]).sum(axis=1) / w[a:b].sum() for a, b in groups], axis=1)
    cmf = np.stack([CMF_FULL[:, a:b].sum(axis=1) for a, b in groups], axis=1)
    return np.ascontiguousarray(basis), np.ascontiguousarray(cmf)


BASIS, CMF = _merge_bands(BAND_GROUPS)  # (7, 24), (3, 24): the per-band loops run over contiguous memory
NB = BASIS.shape[1]
assert NB % 8 == 0  # the mix's band loop runs over whole vectors, with no scalar remainder
#: The mix runs in float32, as p5.brush's shader does (spectral.js in GLSL): twice the bands per vector, and
#: the square roots are cheaper (a mix 22 -> 19 ns; 1 in 6000 mixes lands one level away from a float64 mix).
CMF32 = CMF.astype(np.float32)
XYZ_RGB = np.asarray(_spectral.XYZ_TO_RGB, dtype=np.float64)
_CACHE_BITS = 16
_CACHE_MIN_BITS = 10
#: a cache entry's key bit for "mix waiting in the batch" (keys use 34 bits): its value is the batch slot
_PENDING = np.int64(1 << 34)
_GOLD = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed 64-bit integer


def _uncompand(x: np.ndarray) -> np.ndarray:
    return np.where(x < 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


LIN_LUT = _uncompand(np.arange(256, dtype=np.float64) / 255.0)


def _compand8(x: float) -> int:
    """sRGB companding of a linear value, clamped and rounded to 8 bits (the reference for ``_to8``)."""
    v = x * 12.92 if x < 0.0031308 else 1.055 * x ** (1.0 / 2.4) - 0.055
    return int(min(max(v, 0.0), 1.0) * 255.0 + 0.5)


def _thresholds() -> np.ndarray:
    """thr[k]: the smallest double whose 8-bit sRGB value is >= k (by bisection on the reference), so a mix
    is brought back to 8 bits by comparisons instead of a pow per channel."""
    thr = np.zeros(257)
    thr[256] = np.inf
    for k in range(1, 256):
        lo, hi = 0.0, 1.0
        while True:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if _compand8(mid) >= k:
                hi = mid
            else:
                lo = mid
        thr[k] = hi
    return thr


_THR = _thresholds()
_BUCKETS = 4096
#: _START[i]: the 8-bit value at the start of linear bucket [i/4096, (i+1)/4096)
_START = np.searchsorted(_THR[1:256], np.arange(_BUCKETS) / _BUCKETS, side="right").astype(np.int64)
# sRGB's steepest slope (12.92 at 0) spans 0.8 levels per bucket, so a bucket holds at most one threshold
assert int(np.diff(_START).max()) <= 1
_X_MAX = float(np.nextafter((_BUCKETS - 0.5) / _BUCKETS, 1.0))  # in the last bucket, above _THR[255]
assert _X_MAX > _THR[255]
#: _NEXT[i]: the threshold after bucket i's start value (bucket i holds at most that one), so the two table
#: reads of ``_to8`` are independent instead of one waiting on the other
_NEXT = _THR[_START + 1]


@njit_inline
def _to8(x):
    """``_compand8`` by table: the bucket's value, plus one if x passes the bucket's one threshold.

    Branch-free (a clamp and a comparison): a loop over thresholds mispredicted often enough to cost a
    third of a mix."""
    x = min(max(x, 0.0), _X_MAX)
    b = _u(int(x * _BUCKETS))
    return _START[b] + (x >= _NEXT[b])


@njit_fast
def _spectrum(lr, lg, lb, ks, row):
    """K/S spectrum of a linear colour into ``ks[row]``; returns its luminance.

    Spectra live in rows of 2-D tables and are passed with their row (not as views), and the basis and
    colour-matching tables are this module's constants, so the per-miss path of the composite creates no
    array objects and passes one array."""
    w = min(lr, min(lg, lb))
    lr -= w
    lg -= w
    lb -= w
    # white plus at most one of cyan/magenta/yellow (the two channels above the minimum) and at most one of
    # red/green/blue (the channel above both others): three basis spectra instead of seven
    c = min(lg, lb)
    m = min(lr, lb)
    y = min(lr, lg)
    sec = 1 if c > 0.0 else (2 if m > 0.0 else 3)
    ws = c if c > 0.0 else (m if m > 0.0 else y)
    r = min(max(0.0, lr - lb), max(0.0, lr - lg))
    g = min(max(0.0, lg - lb), max(0.0, lg - lr))
    b = min(max(0.0, lb - lg), max(0.0, lb - lr))
    pri = 4 if r > 0.0 else (5 if g > 0.0 else 6)
    wp = r if r > 0.0 else (g if g > 0.0 else b)
    lum = 0.0
    for i in range(NB):
        v = w * BASIS[0, i] + ws * BASIS[sec, i] + wp * BASIS[pri, i]
        v = max(1e-4, v)
        lum += v * CMF[1, i]
        ks[row, i] = (1.0 - v) * (1.0 - v) / (2.0 * v)
    return lum


#: The batched mix's float32 tables: the basis spectra and the luminance weights.
BASIS32 = BASIS.astype(np.float32)
LIN32 = LIN_LUT.astype(np.float32)
CMFY32 = np.ascontiguousarray(CMF32[1])
#: Rows of a batch buffer (``Work.mb``, one column per mix): the background's seven basis weights, its K/S
#: spectrum (NB rows, band-major so a band's loop runs over mixes), the pigment spectrum of each mix (used when
#: they differ), then the background luminance, the two concentrations and X, Y, Z.
_MB_W = 0
_MB_KS = 7
_MB_KP = _MB_KS + NB
_MB_LUM = _MB_KP + NB
_MB_W1 = _MB_LUM + 1
_MB_W2 = _MB_W1 + 1
_MB_X = _MB_W2 + 1
_MB_ROWS = _MB_X + 3
#: ``_mix_batch`` pads a batch to whole vectors of this many mixes (float32 lanes of a 512-bit vector)
_LANES = 16


@njit_fast
def _mix_batch(keys, n, is_brush, kp, lump, dk, dlum, mb, out):
    """The 8-bit sRGB of n K/S mixes, packed as 0xRRGGBB into ``out``: mix s of background colour
    ``keys[s] >> 10`` with the pigment (spectrum ``kp``, luminance ``lump``) at ratio ``keys[s] & 1023``
    (t x 1020; a brush's is its 8-bit alpha x 4, and a brush pixel above alpha 0.7 mixes the darkened
    pigment ``dk[alpha]``, luminance ``dlum[alpha]``). ``keys``, ``out`` and the rows of ``mb`` need room for n
    rounded up to whole vectors (``_LANES``): the batch is padded.

    Each step runs over all n mixes at once, lanes across mixes. One mix at a time is a chain of dependent
    divisions, square roots and sums that leaves the vector units idle: ~42 ns a mix with its background
    spectrum, against ~20 ns here (batches of a few hundred). The background spectrum is computed in float32,
    as the shader does (p5.brush mixes in GLSL); the pigment's comes from ``_spectrum``. Over 20,000 mixes
    on dark backgrounds (K/S at its steepest) as many land a level away from spectral.js's float64 38-band
    mix as did with the float64 spectrum (0.26% against 0.28%)."""
    # the batch padded to whole vectors with repeats of its first key (mixed, then dropped with the rest of
    # ``out``'s padding): every mix then runs on the vector loops' full-width body. Their remainders ran in
    # 4-wide vectors and scalars: slower (600 random mixes took 13.2 us, padded to 608 11.9 us), and, contracted
    # and estimated differently, a level apart from the body on a few mixes in 64,000.
    npad = (n + _LANES - 1) & ~(_LANES - 1)
    for s in range(n, npad):
        keys[s] = keys[0]
    n = npad
    one = np.float32(1.0)
    two = np.float32(2.0)
    # the background in linear float32 (table reads in a loop of their own, so the next loop is plain arithmetic)
    for s in range(n):
        us = _u(s)
        ck = keys[us] >> 10
        mb[_MB_X, us] = LIN32[_u(ck >> 16)]
        mb[_MB_X + 1, us] = LIN32[_u((ck >> 8) & 255)]
        mb[_MB_X + 2, us] = LIN32[_u(ck & 255)]
    # its basis weights: white plus at most one of cyan/magenta/yellow and one of red/green/blue (spectral.js's
    # seven; the others are exactly 0 and add exactly nothing)
    zero = np.float32(0.0)
    for s in range(n):
        us = _u(s)
        lr = mb[_MB_X, us]
        lg = mb[_MB_X + 1, us]
        lb = mb[_MB_X + 2, us]
        w = min(lr, min(lg, lb))
        lr -= w
        lg -= w
        lb -= w
        mb[_MB_W, us] = w
        mb[_MB_W + 1, us] = min(lg, lb)
        mb[_MB_W + 2, us] = min(lr, lb)
        mb[_MB_W + 3, us] = min(lr, lg)
        mb[_MB_W + 4, us] = min(max(zero, lr - lb), max(zero, lr - lg))
        mb[_MB_W + 5, us] = min(max(zero, lg - lb), max(zero, lg - lr))
        mb[_MB_W + 6, us] = min(max(zero, lb - lg), max(zero, lb - lr))
        mb[_MB_LUM, us] = zero
    for i in range(NB):
        ui = _u(i)
        b0 = BASIS32[0, ui]
        b1 = BASIS32[1, ui]
        b2 = BASIS32[2, ui]
        b3 = BASIS32[3, ui]
        b4 = BASIS32[4, ui]
        b5 = BASIS32[5, ui]
        b6 = BASIS32[6, ui]
        cy = CMFY32[ui]
        uk = _u(_MB_KS + i)
        for s in range(n):
            us = _u(s)
            v = (mb[_MB_W, us] * b0 + mb[_MB_W + 1, us] * b1 + mb[_MB_W + 2, us] * b2 + mb[_MB_W + 3, us] * b3
                 + mb[_MB_W + 4, us] * b4 + mb[_MB_W + 5, us] * b5 + mb[_MB_W + 6, us] * b6)
            v = max(np.float32(1e-4), v)
            mb[_MB_LUM, us] += v * cy
            mb[uk, us] = (one - v) * (one - v) / (two * v)
    # concentrations t^2 x luminance, normalised (a fill's loop has no branch, so it runs on vectors)
    dark = False
    if is_brush:
        for s in range(n):
            us = _u(s)
            av = _u((keys[us] & 1023) >> 2)
            t = _A8[av]
            lp = lump
            if t > 0.7:
                lp = dlum[av]
                dark = True
            c1 = (1.0 - t) * (1.0 - t) * mb[_MB_LUM, us]
            c2 = t * t * lp
            tot = max(c1 + c2, 1e-12)
            mb[_MB_W1, us] = c1 / tot
            mb[_MB_W2, us] = c2 / tot
    else:
        for s in range(n):
            us = _u(s)
            t = (keys[us] & 1023) / 1020.0
            c1 = (1.0 - t) * (1.0 - t) * mb[_MB_LUM, us]
            c2 = t * t * lump
            tot = max(c1 + c2, 1e-12)
            mb[_MB_W1, us] = c1 / tot
            mb[_MB_W2, us] = c2 / tot
    for s in range(n):
        us = _u(s)
        mb[_MB_X, us] = 0.0
        mb[_MB_X + 1, us] = 0.0
        mb[_MB_X + 2, us] = 0.0
    # two copies of the band loop: with one pigment (every fill, most brush batches) its spectrum is a constant
    # per band; reading a per-mix copy instead, as the darkened brush pixels need, measured 6% slower
    if dark:
        # some brush pixels mix a darkened pigment: each mix reads its own pigment spectrum
        for s in range(n):
            us = _u(s)
            av = (keys[us] & 1023) >> 2
            d = _A8[_u(av)] > 0.7
            for i in range(NB):
                mb[_MB_KP + i, us] = dk[_u(av), _u(i)] if d else kp[_u(i)]
        for i in range(NB):
            ui = _u(i)
            cx = CMF32[0, ui]
            cy = CMF32[1, ui]
            cz = CMF32[2, ui]
            uk = _u(_MB_KS + i)
            up = _u(_MB_KP + i)
            for s in range(n):
                us = _u(s)
                k = mb[uk, us] * mb[_MB_W1, us] + mb[up, us] * mb[_MB_W2, us]
                r = one + k - np.sqrt(k * k + two * k)
                mb[_MB_X, us] += r * cx
                mb[_MB_X + 1, us] += r * cy
                mb[_MB_X + 2, us] += r * cz
    else:
        for i in range(NB):
            ui = _u(i)
            k2 = kp[ui]
            cx = CMF32[0, ui]
            cy = CMF32[1, ui]
            cz = CMF32[2, ui]
            uk = _u(_MB_KS + i)
            for s in range(n):
                us = _u(s)
                k = mb[uk, us] * mb[_MB_W1, us] + k2 * mb[_MB_W2, us]
                r = one + k - np.sqrt(k * k + two * k)
                mb[_MB_X, us] += r * cx
                mb[_MB_X + 1, us] += r * cy
                mb[_MB_X + 2, us] += r * cz
    m = XYZ_RGB
    for s in range(n):
        us = _u(s)
        xd = float(mb[_MB_X, us])
        yd = float(mb[_MB_X + 1, us])
        zd = float(mb[_MB_X + 2, us])
        out[us] = ((_to8(m[0, 0] * xd + m[0, 1] * yd + m[0, 2] * zd) << 16)
                   | (_to8(m[1, 0] * xd + m[1, 1] * yd + m[1, 2] * zd) << 8)
                   | _to8(m[2, 0] * xd + m[2, 1] * yd + m[2, 2] * zd))


@njit
def _mask_alpha(mask, is_log, ox, oy, ex0, ey0, rw, rh, a8):
    """A mask as 8-bit alpha (p5.brush's mask textures are 8-bit) into ``a8``; an untouched pixel gives exactly 0.

    The fill mask sums log-transparencies (0 untouched); the brush mask (``is_log`` false) already holds 8-bit
    alpha (``raster._over8``)."""
    for q in range(rh):
        uq = _u(q)  # 2-D indices unsigned (``_jit.uidx``): no wraparound tests, no row views
        um = _u(ey0 - oy + q)
        if not is_log:
            for c in range(rw):
                a8[uq, c] = int(mask[um, _u(ex0 - ox + c)])
            continue
        for c in range(rw):
            v = mask[um, _u(ex0 - ox + c)]
            a8[uq, c] = 0 if v == 0.0 else int(math.floor((1.0 - math.exp(v)) * 255.0 + 0.5))


@njit
def _padded(logm_h, logm_w, ox, oy, ch, cw, x0, y0, x1, y1):
    """Clip [x0,x1) x [y0,y1) to mask and canvas, and pad it by 3 px (the edge term's reach) within the mask."""
    x0 = max(x0, ox, 0)
    y0 = max(y0, oy, 0)
    x1 = min(x1, ox + logm_w, cw)
    y1 = min(y1, oy + logm_h, ch)
    pad = 3
    ex0 = max(x0 - pad, ox)
    ey0 = max(y0 - pad, oy)
    ex1 = min(x1 + pad, ox + logm_w)
    ey1 = min(y1 + pad, oy + logm_h)
    return x0, y0, x1, y1, ex0, ey0, ex1 - ex0, ey1 - ey0


def _rim_smoothstep(v: np.ndarray) -> np.ndarray:
    """The fill shader's rim for a mask step of v 8-bit levels: smoothstep(0.05, 0.35, 15 x v / 255)."""
    t = np.clip((15.0 / 255.0 * v - 0.05) / 0.3, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _edge_lut(sub: int = 4) -> np.ndarray:
    """g[i, j]: the shader's smoothstep(0.05, 0.35, 15 x |(dFdx, dFdy)|) where our hard mask steps by i/255
    across a quad in x and j/255 in y (see ``_edge_term``), averaged over where the edge falls in its pixel.

    p5.brush's mask is antialiased: an edge at a uniform sub-pixel offset splits its step s over two pixels,
    and a quad's difference sees the part u x s that falls between its two pixels, u uniform in [0, 1]. So
    g = E[smoothstep(15 x |(u i, v j)| / 255)] over u, v uniform: 1 / (i j) times the integral of the
    smoothstep over [0, i] x [0, j], from cumulative sums on a grid of 1/sub level (within 5e-4 of sub = 16;
    about 28 ms, once per process). Taking the half step (i / 2) for every edge instead, as before, put too little rim on the small
    steps of faint layers and texture holes and too much on large ones: textured fills came out 2-9% fainter
    than p5.brush's (0.977 of its darkness against 0.955 for texture 0.5 on white, 0.956 against 0.915 on a
    dark ground)."""
    h = 1.0 / sub
    x = (np.arange(255 * sub) + 0.5) * h  # midpoints of the grid cells over [0, 255]
    k = np.arange(1, 256)
    out = np.zeros((256, 256))
    area = _rim_smoothstep(np.hypot(x[:, None], x[None, :])).cumsum(0).cumsum(1) * (h * h)
    out[1:, 1:] = area[k[:, None] * sub - 1, k[None, :] * sub - 1] / (k[:, None] * k[None, :])
    line = _rim_smoothstep(x).cumsum() * h  # a step in one direction only
    out[0, 1:] = out[1:, 0] = line[k * sub - 1] / k
    return out


_EDGE = _edge_lut()
_EDGE_FLAT = _EDGE.ravel()  # _EDGE[i, j] at i * 256 + j
#: a / 255 for each 8-bit alpha (a table read instead of a division per pixel)
_A8 = np.arange(256) / 255.0


@njit
def _edge_term(a8, ex0, ey0, rw, rh, g, h3, elo, ehi):
    """The fill shader's rim darkening: smoothstep of |grad alpha| (x15), then the 3x3 sum at offsets of 2 px.

    dFdx/dFdy as a GPU takes them: one difference per 2x2 quad (pairs of even and odd canvas columns/rows).
    p5.brush draws its mask antialiased, so a polygon edge splits its step over the pixel it crosses; ours
    is hard-edged, so each quad reads the difference from the pixel before it to its odd pixel (every hard
    step falls in exactly one quad's reach) and the table ``_EDGE`` gives the smoothstep's mean over where an
    antialiased edge with that step would fall. (The plain quad difference on a hard mask sees every full
    step and saturates the smoothstep, darkening every layer's edge: a fill at opacity 200 came out 2.8-6.4
    levels darker than p5.brush's over six seeds.) Alpha is 8-bit, so the smoothstep comes from a table.
    The 3x3 sum is separable: ``h3`` gets each row's three taps (from one row of smoothsteps in ``g``) and the
    caller adds three rows of it.
    Row q's taps are taken over columns [elo[q], ehi[q]) only (the caller's rows of interest; elsewhere h3
    keeps stale values the caller never reads), its smoothsteps over that range widened by the taps' reach.
    """
    # indices unsigned, so numba drops its negative-index wraparound test on every table and row access
    ca = np.empty(rw, np.uint64)
    cb = np.empty(rw, np.uint64)
    for c in range(rw):
        e = min(max(((ex0 + c) & ~1) - ex0, 0), rw - 1)
        ca[c] = max(e - 1, 0)
        cb[c] = min(e + 1, rw - 1)
    for q in range(rh):
        e0 = elo[q]
        e1 = ehi[q]
        if e1 <= e0:
            continue
        e = min(max(((ey0 + q) & ~1) - ey0, 0), rh - 1)
        uq = _u(q)
        ua = _u(max(e - 1, 0))
        ub = _u(min(e + 1, rh - 1))
        g0 = max(e0 - 2, 0)
        for j in range(min(e1 + 2, rw) - g0):
            c = _u(g0 + j)
            g[c] = _EDGE_FLAT[_u(abs(a8[uq, cb[c]] - a8[uq, ca[c]]) * 256 + abs(a8[ub, c] - a8[ua, c]))]
        # three runs: taps clamped at the region's left edge, the inner taps (a plain vector loop), clamped right
        l1 = min(max(2, e0), e1)
        i1 = max(min(e1, rw - 2), l1)
        for c in range(e0, l1):
            h3[uq, c] = g[max(c - 2, 0)] + g[c] + g[min(c + 2, rw - 1)]
        for j in range(i1 - l1):
            c = _u(l1 + j)
            h3[uq, c] = g[_u(c - 2)] + g[c] + g[_u(c + 2)]
        for c in range(i1, e1):
            h3[uq, c] = g[max(c - 2, 0)] + g[c] + g[min(c + 2, rw - 1)]


@njit_inline
def _rim_ratio(a, s):
    """A fill pixel's mix ratio, in the key's 1/1020 units on the mask's 1/255 grid: t x 255 for
    t = min(a / 255 + 0.1 x s / 9, 1), alpha a in 8 bits and s the rim's nine taps summed, multiplied out so the
    vector loop that calls it holds no division."""
    return 4 * int(min(a + s * (25.5 / 9.0), 255.0) + 0.5)


@njit_vec
def _rim_row(a8, q, h3, qm, q0, qp, c0, c1, tqr):
    """Row q's mix ratio with the rim term (h3 rows qm, q0, qp) over columns [c0, c1), rounded to the 8-bit
    mask's 1/255 grid (kept in 1/1020 units, the key's): a branch-free pass, so it vectorises ahead of the
    serial cache loop.

    The rim adds a continuous amount to t, so on a finer grid (1/1020 before) nearly every rim pixel was a
    mix of its own; on the mask's grid the cache hits across noisy masks (mixes 45% fewer on median paintings,
    renders ~4% faster). Measured over the 66 parity paintings against the 1/1020 grid: mean change per
    painting 0-0.28 levels (median 0.03), signed mean within +-0.04 (no drift), far inside the native-vs-browser
    difference.
    """
    uq = _u(q)
    um = _u(qm)
    u0 = _u(q0)
    up = _u(qp)
    for j in range(c1 - c0):
        c = _u(c0 + j)
        tqr[c] = _rim_ratio(a8[uq, c], h3[um, c] + h3[u0, c] + h3[up, c])


#: ``_rim_smoothstep`` of |(i, j)| for whole 8-bit steps, unaveraged, at i * 256 + j (``_dead_lanes``: the step
#: against a lane that returned reads the lane as 0, wherever an edge falls)
_PLAIN_FLAT = _rim_smoothstep(np.hypot(np.arange(256.0)[:, None], np.arange(256.0)[None, :])).ravel()


@njit_inline
def _quad_test(a8, uq, r0, r2, xe, rw, rh, c0, c1, tqr):
    """One quad of ``_dead_lanes``: returns True when every lane it reads is live (a clean quad)."""
    k0 = _u(max(xe, 0))
    k1 = _u(min(xe + 1, rw - 1))
    l0 = a8[r0, k0] != 0
    l1 = a8[r0, k1] != 0
    l2 = a8[r2, k0] != 0
    if l0 & l1 & l2:
        return True
    # the row's reach past the mask (its pad) has no live pixel
    if (a8[uq, k0] != 0) | (a8[uq, k1] != 0):
        _dead_quad(a8, uq, r0, r2, xe, np.int64(k0), np.int64(k1), l0, l1, l2, rw, rh, c0, c1, tqr)
    return False


@njit
def _dead_lanes(a8, q, ex0, ey0, rw, rh, c0, c1, tqr):
    """The rim of row q's pixels [c0, c1) whose 2x2 quad has a pixel of alpha 0, as Chromium's shader draws it.

    The fill shader returns early where the mask's alpha is 0, and its derivatives are coarse (SwiftShader,
    measured: dFdx from the quad's lanes 0 and 1, on its odd canvas row; dFdy from lanes 0 and 2, on its even
    column). A lane that returned reads 0 at every tap, so the live pixels of a quad on the mask's outer edge
    see their own taps' full alpha as the step: a strong rim along every fill's edge, of which the averaged
    table (``_EDGE``) gives a fraction. Against that shader run on p5.brush's own masks, a faint textured fill's
    mix ratio summed to 0.93-0.98 of Chromium's with the table alone and 0.95-0.995 with these quads (strong
    fills +0.1%).

    Few quads are on an edge, and in most rows they lie at the two ends: the quads are tested one by one from
    each end up to the first clean one, and the run between is tested quad by quad only if a branch-free pass
    finds a pixel of alpha 0 in it (a hole, a concave edge)."""
    uq = _u(q)
    qe = ((ey0 + q) & ~1) - ey0
    r0 = _u(min(max(qe + 1, 0), rh - 1))  # lanes 0 and 1
    r2 = _u(min(max(qe, 0), rh - 1))  # lane 2
    lo = ((ex0 + c0) & ~1) - ex0  # the first quad's even column (region-relative)
    hi = lo + ((c1 - lo + 1) >> 1) * 2  # past the last quad
    while lo < hi:
        if _quad_test(a8, uq, r0, r2, lo, rw, rh, c0, c1, tqr):
            break
        lo += 2
    while hi - 2 > lo:
        if _quad_test(a8, uq, r0, r2, hi - 2, rw, rh, c0, c1, tqr):
            break
        hi -= 2
    # quads lo and hi - 2 are clean (or the same quad); those strictly between are tested if any lane is 0
    a = max(lo + 2, 0)
    b = min(hi - 2, rw - 1)
    z = 1  # alpha is never negative: a lane of alpha 0 brings the least to 0
    for j in range(b - a):
        c = _u(a + j)
        z = min(z, min(a8[r0, c], a8[r2, c]))
    if z == 0:
        for xe in range(lo + 2, hi - 2, 2):
            _quad_test(a8, uq, r0, r2, xe, rw, rh, c0, c1, tqr)


@njit
def _dead_quad(a8, uq, r0, r2, xe, k0, k1, l0, l1, l2, rw, rh, c0, c1, tqr):
    """``_dead_lanes`` for one edge quad: its nine taps with the returned lanes read as 0, for its live pixels."""
    s = 0.0
    for j in (-2, 0, 2):
        y0 = _u(min(max(np.int64(r0) + j, 0), rh - 1))
        y2 = _u(min(max(np.int64(r2) + j, 0), rh - 1))
        for i in (-2, 0, 2):
            x0 = _u(min(max(k0 + i, 0), rw - 1))
            x1 = _u(min(max(k1 + i, 0), rw - 1))
            v0 = np.int64(a8[y0, x0]) if l0 else 0
            v1 = np.int64(a8[y0, x1]) if l1 else 0
            v2 = np.int64(a8[y2, x0]) if l2 else 0
            s += _PLAIN_FLAT[_u(abs(v1 - v0) * 256 + abs(v2 - v0))]
    for c in range(max(xe, c0), min(xe + 2, c1)):
        a = a8[uq, _u(c)]
        if a != 0:
            tqr[_u(c)] = _rim_ratio(a, s)


#: Misses collected before their mixes are computed together: enough that the batch's loops run on full
#: vectors and a call's fixed cost (some 0.9 us: each of the 48 band loops sets up) is spread thin, few enough
#: that its buffers stay in L2. (512 mixed faster alone, 19.6 against 21.5 ns, but no faster in composites.)
_BATCH = 256


@njit
def _flush(canvas, ent, mkey, mslot, mval, pcol, pslot, nm, npx, is_brush, kp, lump, dk, dlum, mb):
    """Compute the nm waiting mixes, store them in the cache and paint the npx pixels waiting for them."""
    if nm == 0:
        return
    _mix_batch(mkey, nm, is_brush, kp, lump, dk, dlum, mb, mval)
    for s in range(nm):
        ent[_u(mslot[s])] = (mkey[s] << 24) | mval[s]
    for i in range(npx):
        p = pcol[i]
        yy = _u(p >> 32)
        xx = _u(p & 0xFFFFFFFF)
        lv = mval[_u(pslot[i])]
        canvas[yy, xx, 0] = lv >> 16
        canvas[yy, xx, 1] = (lv >> 8) & 255
        canvas[yy, xx, 2] = lv & 255


@njit
def _blend(canvas, a8, ex0, ey0, rw, rh, x0, y0, x1, y1, pig, is_brush, lut, work, alo, ahi):
    """Mix the pigment into ``canvas`` over [x0,x1) x [y0,y1) with 8-bit alpha ``a8`` (padded region at ex0, ey0).

    a8 is 0 outside columns [alo[q], ahi[q]) of padded row q (region-relative): only those are visited."""
    h3 = work.h3
    if not is_brush:
        # the rim of row q reads the taps of rows q - 2 .. q + 2: each row's taps over the union of theirs
        elo = np.empty(rh, np.int64)
        ehi = np.empty(rh, np.int64)
        for q in range(rh):
            lo = rw
            hi = 0
            for p in range(max(q - 2, 0), min(q + 3, rh)):
                if ahi[p] > alo[p]:
                    lo = min(lo, alo[p])
                    hi = max(hi, ahi[p])
            elo[q] = lo
            ehi[q] = hi
        _edge_term(a8, ex0, ey0, rw, rh, work.g, h3, elo, ehi)
    ksp = np.zeros((1, NB), np.float32)  # the pigment's spectrum
    plr = lut[min(255, max(0, int(pig[0] * 255.0 + 0.5)))]
    plg = lut[min(255, max(0, int(pig[1] * 255.0 + 0.5)))]
    plb = lut[min(255, max(0, int(pig[2] * 255.0 + 0.5)))]
    lump = _spectrum(plr, plg, plb, ksp, 0)
    kp = ksp[0]
    # a brush pixel above alpha 0.7 mixes a darkened pigment (one per alpha, made when first needed)
    dk = work.dk
    dlum = work.dlum
    dset = np.zeros(256, np.bool_)
    # the mix cache: one int64 per entry, key in the high bits and the 8-bit result in the low 24 bits,
    # so a probe touches one cache line
    ent = work.ent
    # a table about the region's size (at most the whole buffer): a small stroke or petal clears a few KB, not
    # 512 KB; cached values are exact, so the table's size changes speed only. Since every pixel probes and t
    # is on the mask's grid, four times the region cleared more than it saved (1.5-3% slower)
    bits = _CACHE_MIN_BITS
    while bits < _CACHE_BITS and (1 << bits) < (x1 - x0) * (y1 - y0):
        bits += 1
    size = 1 << bits
    shift = 64 - bits
    ent[:size] = -1
    changed = 0
    tqr = work.tq
    mb = work.mb
    mkey = work.mkey
    mslot = work.mslot
    mval = work.mval
    pcol = work.pcol
    pslot = work.pslot
    nm = 0
    npx = 0
    for yy in range(y0, y1):
        q = yy - ey0
        uq = _u(q)
        uy = _u(yy)
        b0 = max(alo[q], x0 - ex0)
        b1 = min(ahi[q], x1 - ex0)
        if b1 <= b0:
            continue
        if is_brush:
            for j in range(b1 - b0):
                c = _u(b0 + j)
                tqr[c] = a8[uq, c] * 4
        else:
            _rim_row(a8, q, h3, max(q - 2, 0), q, min(q + 2, rh - 1), b0, b1, tqr)
            _dead_lanes(a8, q, ex0, ey0, rw, rh, b0, b1, tqr)
        # Each pixel's key is read: a hit is written at once, a miss gets a slot (its cache entry marked pending
        # with the slot, so later pixels with the same key share it). Once enough slots wait (or at the end),
        # their mixes are computed together (``_mix_batch``) and written to the cache and to the pixels that
        # wait for them. A mix depends on its key alone and every pixel is visited once, so deferring a mix
        # changes no value.
        for j in range(b1 - b0):
            c = _u(b0 + j)
            av = a8[uq, c]
            if av == 0:
                continue
            xx = _u(ex0 + b0 + j)
            # the background enters exactly: rounding it down to even levels (more cache hits, 4-11% faster)
            # darkened a pixel by a level on every composite that left it odd, so faint fills came out too dark
            br = np.int64(canvas[uy, xx, 0])
            bg = np.int64(canvas[uy, xx, 1])
            bb = np.int64(canvas[uy, xx, 2])
            # 24 bits of background and 10 of t (tq <= 1020)
            key = (((br << 16) | (bg << 8) | bb) << 10) | tqr[c]
            changed += 1
            # every pixel probes: skipping the probe when the key repeats the last pixel's was a branch taken
            # about half the time at random (rims, texture), and its mispredictions cost more than the probes
            # Fibonacci hashing: the top bits mix every key bit (unsigned: the index needs no wraparound test)
            h = _u(((key * _GOLD) >> shift) & (size - 1))
            e = ent[h]
            if (e >> 24) == key:
                lv = e & 0xFFFFFF
                canvas[uy, xx, 0] = lv >> 16
                canvas[uy, xx, 1] = (lv >> 8) & 255
                canvas[uy, xx, 2] = lv & 255
                continue
            if (e >> 24) == key | _PENDING:
                s = e & 0xFFFFFF
            else:
                s = nm
                nm += 1
                mkey[s] = key
                mslot[s] = h
                ent[h] = ((key | _PENDING) << 24) | s
                av = np.int64(av)
                if is_brush and _A8[av] > 0.7 and not dset[av]:
                    bl = 0.5 * (min(_A8[av], 1.0) - 0.7)
                    pr = max(pig[0] * (1.0 - bl) - 0.5 * bl, 0.0)
                    pg = max(pig[1] * (1.0 - bl) - 0.5 * bl, 0.0)
                    pb = max(pig[2] * (1.0 - bl) - 0.5 * bl, 0.0)
                    dlum[av] = _spectrum(lut[min(255, int(pr * 255.0 + 0.5))], lut[min(255, int(pg * 255.0 + 0.5))],
                                         lut[min(255, int(pb * 255.0 + 0.5))], dk, av)
                    dset[av] = True
            pcol[npx] = (yy << 32) | xx
            pslot[npx] = s
            npx += 1
        # room for another row of misses
        if nm >= _BATCH or npx > pcol.shape[0] - rw:
            _flush(canvas, ent, mkey, mslot, mval, pcol, pslot, nm, npx, is_brush, kp, lump, dk, dlum, mb)
            nm = 0
            npx = 0
    _flush(canvas, ent, mkey, mslot, mval, pcol, pslot, nm, npx, is_brush, kp, lump, dk, dlum, mb)
    return changed


@njit
def composite(canvas, mask, ox, oy, x0, y0, x1, y1, pig, is_brush, lut, work):
    """Blend the mask region [x0,x1) x [y0,y1) (canvas coords; ``mask`` starts at ox, oy; see ``_mask_alpha``).

    ``work`` is a reusable ``Work`` (buffers at least as large as the padded region, and the caches),
    so a composite touches no fresh memory. Returns the number of pixels changed.
    """
    x0, y0, x1, y1, ex0, ey0, rw, rh = _padded(mask.shape[0], mask.shape[1], ox, oy, canvas.shape[0],
                                               canvas.shape[1], x0, y0, x1, y1)
    if x1 <= x0 or y1 <= y0:
        return 0
    _mask_alpha(mask, not is_brush, ox, oy, ex0, ey0, rw, rh, work.a8)
    return _blend(canvas, work.a8, ex0, ey0, rw, rh, x0, y0, x1, y1, pig, is_brush, lut, work,
                  np.zeros(rh, np.int64), np.full(rh, rw, np.int64))


#: Reusable composite buffers: 8-bit alpha and the edge term's row sums (>= the padded region, 2-D), one row of
#: the edge term, the mix cache, one row of mix ratios; the waiting batch (each slot's key, cache entry and mixed
#: colour; each waiting pixel's position and slot; the batch's buffer ``mb``) and the darkened brush pigments.
Work = namedtuple("Work", "a8 g h3 ent tq mkey mslot mval pcol pslot mb dk dlum")


def make_work(height: int, width: int) -> Work:
    h, w = height + 8, width + 8
    return Work(np.zeros((h, w), np.int32), np.zeros(w), np.zeros((h, w)), np.full(1 << _CACHE_BITS, -1, np.int64),
                np.zeros(w, np.int64), *(np.zeros(w + _BATCH + _LANES, np.int64) for _ in range(3)),
                *(np.zeros(2 * w + _BATCH, np.int64) for _ in range(2)),
                np.zeros((_MB_ROWS, w + _BATCH + _LANES), np.float32),
                np.zeros((256, NB), np.float32), np.zeros(256))


def composite_mask(canvas: np.ndarray, mask: np.ndarray, origin: tuple[int, int], rect, rgb, is_brush: bool,
                   work: Work | None = None) -> int:
    """Blend a mask placed at ``origin`` over ``rect`` into ``canvas`` in place: the fill mask holds summed
    log-transparencies, the brush mask (``is_brush``) 8-bit alpha."""
    x0, y0, x1, y1 = (int(v) for v in rect)
    pig = np.asarray(rgb, dtype=np.float64) / 255.0
    if work is None:
        work = make_work(canvas.shape[0], canvas.shape[1])
    return composite(canvas, mask, int(origin[0]), int(origin[1]), x0, y0, x1, y1, pig, bool(is_brush),
                     LIN_LUT, work)
