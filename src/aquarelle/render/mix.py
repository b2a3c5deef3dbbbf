"""Compositing a mask onto the canvas with p5.brush's Kubelka-Munk pigment mix.

p5.brush blends every mask into the canvas with spectral.js: both colours are
lifted to 38-band reflectance, mixed as K/S weighted by concentration
(t^2 x luminance), and brought back to sRGB, so red over cream turns pink and
blue over yellow turns green instead of grey. We run the same 38-band maths,
compiled, behind a per-composite cache keyed by (background colour, t) so the
many pixels that share both cost one lookup. Fills add the shader's edge term
(a blurred smoothstep of the mask gradient: darker rims); brush masks darken
the pigment where the mask saturates above 0.7, as the shader does.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from . import _spectral
from ._jit import njit, njit_fast

BASIS = np.asarray(_spectral.BASIS, dtype=np.float64)  # (38, 7) w c m y r g b
CMF = np.asarray(_spectral.CMF, dtype=np.float64)  # (38, 3)
XYZ_RGB = np.asarray(_spectral.XYZ_TO_RGB, dtype=np.float64)
EPS = 1e-4
_CACHE_BITS = 16
_GOLD = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed 64-bit integer


def _uncompand(x: np.ndarray) -> np.ndarray:
    return np.where(x < 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


LIN_LUT = _uncompand(np.arange(256, dtype=np.float64) / 255.0)


@njit
def _reflectance(lr, lg, lb, basis, out):
    w = min(lr, min(lg, lb))
    lr -= w
    lg -= w
    lb -= w
    c = min(lg, lb)
    m = min(lr, lb)
    y = min(lr, lg)
    r = min(max(0.0, lr - lb), max(0.0, lr - lg))
    g = min(max(0.0, lg - lb), max(0.0, lg - lr))
    b = min(max(0.0, lb - lg), max(0.0, lb - lr))
    for i in range(out.shape[0]):
        v = (w * basis[i, 0] + c * basis[i, 1] + m * basis[i, 2] + y * basis[i, 3]
             + r * basis[i, 4] + g * basis[i, 5] + b * basis[i, 6])
        out[i] = max(1e-4, v)


@njit
def _compand(x):
    if x < 0.0031308:
        v = x * 12.92
    else:
        v = 1.055 * x ** (1.0 / 2.4) - 0.055
    if v < 0.0:
        v = 0.0
    elif v > 1.0:
        v = 1.0
    return v


@njit_fast
def _spectrum(lr, lg, lb, basis, cmf, ks):
    """K/S spectrum of a linear colour into ``ks``; returns its luminance."""
    n = basis.shape[0]
    _reflectance(lr, lg, lb, basis, ks)
    lum = 0.0
    for i in range(n):
        lum += ks[i] * cmf[i, 1]
        r = ks[i]
        ks[i] = (1.0 - r) * (1.0 - r) / (2.0 * r)
    return lum


@njit_fast
def _mix(ks1, lum1, ks2, lum2, t, cmf, m, out):
    c1 = (1.0 - t) * (1.0 - t) * lum1
    c2 = t * t * lum2
    tot = c1 + c2
    if tot <= 0.0:
        tot = 1e-12
    x = 0.0
    y = 0.0
    z = 0.0
    for i in range(ks1.shape[0]):
        k = (ks1[i] * c1 + ks2[i] * c2) / tot
        r = 1.0 + k - math.sqrt(k * k + 2.0 * k)
        x += r * cmf[i, 0]
        y += r * cmf[i, 1]
        z += r * cmf[i, 2]
    for j in range(3):
        out[j] = _compand(m[j, 0] * x + m[j, 1] * y + m[j, 2] * z)


@njit
def composite(canvas, logm, ox, oy, x0, y0, x1, y1, pig, is_brush, basis, cmf, m, lut, work):
    """Blend the mask region [x0,x1) x [y0,y1) (canvas coords; ``logm`` starts at ox, oy) into ``canvas``.

    The mask is read as 8-bit alpha, as p5.brush's mask textures are; pixels at 0 are untouched.
    ``work`` is a reusable ``Work`` (buffers at least as large as the padded region, and the caches),
    so a composite touches no fresh memory. Returns the number of pixels changed.
    """
    hh, ww = logm.shape
    ch, cw = canvas.shape[0], canvas.shape[1]
    x0 = max(x0, ox, 0)
    y0 = max(y0, oy, 0)
    x1 = min(x1, ox + ww, cw)
    y1 = min(y1, oy + hh, ch)
    if x1 <= x0 or y1 <= y0:
        return 0
    pad = 3
    ex0 = max(x0 - pad, ox)
    ey0 = max(y0 - pad, oy)
    ex1 = min(x1 + pad, ox + ww)
    ey1 = min(y1 + pad, oy + hh)
    rw = ex1 - ex0
    rh = ey1 - ey0
    a = work.a
    for q in range(rh):
        for c in range(rw):
            lv = logm[ey0 - oy + q, ex0 - ox + c]
            if lv == 0.0:
                a[q, c] = 0.0
            else:
                a[q, c] = math.floor((1.0 - math.exp(lv)) * 255.0 + 0.5) / 255.0
    g = work.g
    if not is_brush:
        # dFdx/dFdy as a GPU takes them: the difference across the pixel's 2x2 quad (pairs of even and
        # odd canvas columns/rows), so a step between an odd column and the next even one is not seen
        for q in range(rh):
            qa = ((ey0 + q) & ~1) - ey0
            qa = min(max(qa, 0), rh - 1)
            qb = min(max(qa + 1, 0), rh - 1)
            for c in range(rw):
                ca = ((ex0 + c) & ~1) - ex0
                ca = min(max(ca, 0), rw - 1)
                cb = min(ca + 1, rw - 1)
                dx = 15.0 * (a[q, cb] - a[q, ca])
                dy = 15.0 * (a[qb, c] - a[qa, c])
                l = math.sqrt(dx * dx + dy * dy)
                t = (l - 0.05) / 0.3
                if t <= 0.0:
                    g[q, c] = 0.0
                elif t >= 1.0:
                    g[q, c] = 1.0
                else:
                    g[q, c] = t * t * (3.0 - 2.0 * t)
    nb = basis.shape[0]
    ksp = np.empty(nb, np.float64)
    plr = lut[min(255, max(0, int(pig[0] * 255.0 + 0.5)))]
    plg = lut[min(255, max(0, int(pig[1] * 255.0 + 0.5)))]
    plb = lut[min(255, max(0, int(pig[2] * 255.0 + 0.5)))]
    lump = _spectrum(plr, plg, plb, basis, cmf, ksp)
    keys = work.keys
    vals = work.vals
    size = keys.shape[0]
    keys[:] = -1
    out = np.empty(3, np.float64)
    # second cache: the background's K/S spectrum per colour (many (colour, t) misses share a colour)
    bkeys = work.bkeys
    bks = work.bks
    blum = work.blum
    bsize = bkeys.shape[0]
    bkeys[:] = -1
    changed = 0
    for yy in range(y0, y1):
        q = yy - ey0
        for xx in range(x0, x1):
            c = xx - ex0
            al = a[q, c]
            if al <= 0.0:
                continue
            if is_brush:
                t = min(al, 1.0)
                tq = int(al * 255.0 + 0.5) * 4
            else:
                s = 0.0
                for oy2 in (-2, 0, 2):
                    qq = min(max(q + oy2, 0), rh - 1)
                    for ox2 in (-2, 0, 2):
                        cc = min(max(c + ox2, 0), rw - 1)
                        s += g[qq, cc]
                t = al + 0.1 * s / 9.0
                if t > 1.0:
                    t = 1.0
                # the mix uses t on a 1/1020 grid: invisible, and the cache then hits across noisy masks
                tq = int(t * 1020.0 + 0.5)
                t = tq / 1020.0
            # the background enters on a 7-bit grid (at most 1 level off): far more cache hits
            br = canvas[yy, xx, 0] & 0xFE
            bg = canvas[yy, xx, 1] & 0xFE
            bb = canvas[yy, xx, 2] & 0xFE
            key = (((np.int64(br) << 16) | (np.int64(bg) << 8) | np.int64(bb)) << 13) | tq
            h = ((key * _GOLD) >> 48) & (size - 1)  # Fibonacci hashing: the top bits mix every key bit
            if keys[h] == key:
                canvas[yy, xx, 0] = vals[h, 0]
                canvas[yy, xx, 1] = vals[h, 1]
                canvas[yy, xx, 2] = vals[h, 2]
                changed += 1
                continue
            ck = (np.int64(br) << 16) | (np.int64(bg) << 8) | np.int64(bb)
            bh = ((ck * _GOLD) >> 52) & (bsize - 1)
            if bkeys[bh] == ck:
                ksb = bks[bh]
                lumb = blum[bh]
            else:
                ksb = bks[bh]
                lumb = _spectrum(lut[br], lut[bg], lut[bb], basis, cmf, ksb)
                blum[bh] = lumb
                bkeys[bh] = ck
            if is_brush and al > 0.7:
                bl = 0.5 * (min(al, 1.0) - 0.7)
                pr = max(pig[0] * (1.0 - bl) - 0.5 * bl, 0.0)
                pg = max(pig[1] * (1.0 - bl) - 0.5 * bl, 0.0)
                pb = max(pig[2] * (1.0 - bl) - 0.5 * bl, 0.0)
                ksd = np.empty(nb, np.float64)
                lumd = _spectrum(lut[min(255, int(pr * 255.0 + 0.5))], lut[min(255, int(pg * 255.0 + 0.5))],
                                 lut[min(255, int(pb * 255.0 + 0.5))], basis, cmf, ksd)
                _mix(ksb, lumb, ksd, lumd, t, cmf, m, out)
            else:
                _mix(ksb, lumb, ksp, lump, t, cmf, m, out)
            for j in range(3):
                v = int(out[j] * 255.0 + 0.5)
                vals[h, j] = v
                canvas[yy, xx, j] = v
            keys[h] = key
            changed += 1
    return changed


#: Reusable composite buffers: alpha and edge term (>= the padded region, 2-D) and the two caches.
Work = namedtuple("Work", "a g keys vals bkeys bks blum")


def make_work(height: int, width: int) -> Work:
    h, w = height + 8, width + 8
    return Work(np.zeros((h, w)), np.zeros((h, w)), np.full(1 << _CACHE_BITS, -1, np.int64),
                np.zeros((1 << _CACHE_BITS, 3), np.uint8), np.full(1 << 12, -1, np.int64),
                np.zeros((1 << 12, BASIS.shape[0])), np.zeros(1 << 12))


def composite_mask(canvas: np.ndarray, logm: np.ndarray, origin: tuple[int, int], rect, rgb, is_brush: bool,
                   work: Work | None = None) -> int:
    """Blend ``logm`` (a log-transparency mask placed at ``origin``) over ``rect`` into ``canvas`` in place."""
    x0, y0, x1, y1 = (int(v) for v in rect)
    pig = np.asarray(rgb, dtype=np.float64) / 255.0
    if work is None:
        work = make_work(canvas.shape[0], canvas.shape[1])
    return composite(canvas, logm, int(origin[0]), int(origin[1]), x0, y0, x1, y1, pig, bool(is_brush),
                     BASIS, CMF, XYZ_RGB, LIN_LUT, work)
