"""Vector fields: p5.brush's seven built-in generators and custom sampled grids.

The grid is p5.brush's: cells of 1% of the canvas width covering twice the
canvas (from -W/2, -H/2), angles in degrees stored as float32, indexed
[column][row]. A built-in field is generated when ``field(name)`` first names
it (and again on ``refreshField``), drawing from p5.brush's second stream
(``rng2``) cell by cell in p5.brush's order, with its table sin/cos and its
simplex noise (simplex-noise 4.0.3's ``createNoise2D``, seeded from the noise
seed as p5.brush seeds it): the same program and seed give the same field as
in the browser.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import njit
from .brush_random import LUT_COS, LUT_SIN, Stream2, cos_deg, lut_index, sin_deg

_F2 = 0.5 * (math.sqrt(3.0) - 1.0)
_G2 = (3.0 - math.sqrt(3.0)) / 6.0
_GRAD2 = np.array([1, 1, -1, 1, 1, -1, -1, -1, 1, 0, -1, 0, 1, 0, -1, 0, 0, 1, 0, -1, 0, 1, 0, -1], np.float64)


def grid_shape(width: int, height: int) -> tuple[int, int, float]:
    res = width * 0.01
    return math.floor(2 * width / res + 0.5), math.floor(2 * height / res + 0.5), res


class Noise2:
    """simplex-noise's ``createNoise2D`` seeded as p5.brush's ``noiseSeed(s)`` seeds ``noise2``."""

    def __init__(self, seed):
        u = Stream2(seed).block(255)  # its own generator, seeded with the same text as rng2
        p = np.arange(512) % 256
        for i in range(255):  # buildPermutationTable: a Fisher-Yates pass over 0..255
            r = i + int(u[i] * (256 - i))
            p[i], p[r] = p[r], p[i]
        p[256:] = p[:256]
        self.perm = p.astype(np.int64)
        self.gx = _GRAD2[(self.perm % 12) * 2].copy()
        self.gy = _GRAD2[(self.perm % 12) * 2 + 1].copy()

    def __call__(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, np.float64)
        y = np.ascontiguousarray(y, np.float64)
        out = np.empty(x.shape)
        _simplex(self.perm, self.gx, self.gy, x.ravel(), y.ravel(), out.reshape(-1))
        return out


@njit
def _simplex(perm, gx, gy, xs, ys, out):
    for k in range(xs.shape[0]):
        x = xs[k]
        y = ys[k]
        s = (x + y) * _F2
        i = math.floor(x + s)
        j = math.floor(y + s)
        t = (i + j) * _G2
        x0 = x - (i - t)
        y0 = y - (j - t)
        if x0 > y0:
            i1 = 1
            j1 = 0
        else:
            i1 = 0
            j1 = 1
        x1 = x0 - i1 + _G2
        y1 = y0 - j1 + _G2
        x2 = x0 - 1.0 + 2.0 * _G2
        y2 = y0 - 1.0 + 2.0 * _G2
        ii = int(i) & 255
        jj = int(j) & 255
        n0 = 0.0
        n1 = 0.0
        n2 = 0.0
        t0 = 0.5 - x0 * x0 - y0 * y0
        if t0 >= 0:
            g = ii + perm[jj]
            t0 *= t0
            n0 = t0 * t0 * (gx[g] * x0 + gy[g] * y0)
        t1 = 0.5 - x1 * x1 - y1 * y1
        if t1 >= 0:
            g = ii + i1 + perm[jj + j1]
            t1 *= t1
            n1 = t1 * t1 * (gx[g] * x1 + gy[g] * y1)
        t2 = 0.5 - x2 * x2 - y2 * y2
        if t2 >= 0:
            g = ii + 1 + perm[jj + 1]
            t2 *= t2
            n2 = t2 * t2 * (gx[g] * x2 + gy[g] * y2)
        out[k] = 70.0 * (n0 + n1 + n2)


def _tsin(d: np.ndarray) -> np.ndarray:
    """p5.brush's table ``sin`` of degrees, elementwise."""
    return LUT_SIN[_idx(np.asarray(d, np.float64).ravel()).reshape(np.shape(d))]


def _tcos(d: np.ndarray) -> np.ndarray:
    return LUT_COS[_idx(np.asarray(d, np.float64).ravel()).reshape(np.shape(d))]


@njit
def _idx(d):
    out = np.empty(d.shape[0], np.int64)
    for k in range(d.shape[0]):
        out[k] = lut_index(d[k])
    return out


def builtin_field(name: str, t: float, cols: int, rows: int, rng2: Stream2, noise: Noise2) -> np.ndarray:
    """One generation of a built-in field (p5.brush's ``addStandard``): (cols, rows) degrees, float32 values."""
    c, r = np.meshgrid(np.arange(cols, dtype=np.float64), np.arange(rows, dtype=np.float64), indexing="ij")

    def ri(a, b):  # randInt2: ~~rr2(a, b)
        return int(math.trunc(a + rng2.random() * (b - a)))

    def cells(a, b):  # one randInt2(a, b) per cell, column by column as fillField visits them
        return np.trunc(a + rng2.block(cols * rows) * (b - a)).reshape(cols, rows)

    if name == "hand":
        bs = 0.2 + rng2.random() * 0.6
        ba = ri(5, 10)
        angle = 0.5 * ba * _tsin(bs * r * c + cells(15, 25))
        out = 0.2 * angle * cos_deg(t) + noise(c, r) * ba * 0.7
    elif name == "curved":
        ar = ri(-10, 10)
        if ri(0, 100) % 2 == 0:
            ar *= -1
        out = 3 * (-ar + noise(c * 0.02 + t * 0.03, r * 0.02 + t * 0.03) * (ar - -ar))
    elif name == "zigzag":
        ar = ri(-30, -15) + abs(44 * sin_deg(t))
        if ri(0, 100) % 2 == 0:
            ar *= -1
        out = np.empty((cols, rows))
        angle, dif = 0.0, ar
        for ci in range(cols):
            for rj in range(rows):
                out[ci, rj] = angle
                angle += dif
                dif = -dif
            angle += dif
            dif = -dif
    elif name == "waves":
        sr = ri(10, 15) + 5 * sin_deg(t)
        cr = ri(3, 6) + 3 * cos_deg(t)
        ba = ri(20, 35)
        out = _tsin(sr * c) * ba * _tcos(r * cr) + cells(-3, 3)
    elif name == "seabed":
        bs = 0.4 + rng2.random() * 0.4
        ba = ri(18, 26)
        out = 1.1 * ba * _tsin(bs * r * c + cells(15, 20)) * cos_deg(t)
    elif name == "spiral":
        n = ri(5, 10)
        d = ri(0, 2) * 2 - 1
        offset = ri(65, 80)
        att = [((0.1 + rng2.random() * 0.8) * cols, (0.1 + rng2.random() * 0.8) * rows) for _ in range(n)]
        wx = np.zeros_like(c)
        wy = np.zeros_like(c)
        for ax, ay in att:
            dx, dy = c - ax, r - ay
            w = 1 / (dx * dx + dy * dy + 1)
            a = np.arctan2(dy, dx) * (180 / math.pi)
            ang = (d * (a + offset) * math.pi) / 180
            wx += w * np.cos(ang)
            wy += w * np.sin(ang)
        out = np.arctan2(wy, wx) * (180 / math.pi)
    elif name == "columns":
        freq, amp = ri(3, 8), ri(25, 45)
        out = _tsin(c * freq) * amp
    else:
        raise KeyError(name)
    # p5.brush keeps fields in Float32Arrays
    return np.ascontiguousarray(np.asarray(out, np.float64).astype(np.float32).astype(np.float64))


def custom_field(grid: list, cols: int, rows: int) -> np.ndarray:
    """A sampled grid from ``addField`` (list of columns of degrees), resampled to the render's grid.

    Bilinear between the four kept samples around a cell, each angle taken the short way round from the first
    (``_turn``), so a field that wraps at 360 (``(c * 3 + r * 2) % 360``) is rebuilt, not smeared through 180.
    Why: the program keeps every 4th cell of p5.brush's grid; the nearest kept cell put a smooth field's angles
    up to 3 cells off, and flowLines through it took other paths than in p5.brush (``examples/study.js`` raw
    against its program: mean pixel difference 0.80; a linear field is now rebuilt exactly). The export's
    ``aquarelleField`` does the same arithmetic in the same order, and both keep the values as float32, as
    p5.brush's Float32Array does, so the two renderers read the same field."""
    g = np.asarray(grid, dtype=np.float64)
    gc, gr = g.shape
    u = np.arange(cols) * gc / cols
    v = np.arange(rows) * gr / rows
    i0 = np.minimum(np.floor(u).astype(np.int64), gc - 1)
    j0 = np.minimum(np.floor(v).astype(np.int64), gr - 1)
    i1 = np.minimum(i0 + 1, gc - 1)
    j1 = np.minimum(j0 + 1, gr - 1)
    fu = (u - i0)[:, None]
    fv = (v - j0)[None, :]
    a00 = g[np.ix_(i0, j0)]
    d10 = _turn(g[np.ix_(i1, j0)] - a00)
    d01 = _turn(g[np.ix_(i0, j1)] - a00)
    d11 = _turn(g[np.ix_(i1, j1)] - a00)
    out = a00 + (1 - fv) * fu * d10 + fv * (1 - fu) * d01 + fu * fv * d11
    out = np.where(np.isnan(out), a00, out)  # a NaN sample spoils only its own cells, as before
    return np.ascontiguousarray(out.astype(np.float32).astype(np.float64))


def _turn(d: np.ndarray) -> np.ndarray:
    """An angle difference (degrees) brought into [-180, 180): the short way round."""
    return d - 360 * np.floor(d / 360 + 0.5)


class FieldBank:
    """The render's fields, each generated when the program first names it (p5.brush's ``field``), again on
    ``refreshField``, drawing from the ``rng2`` stream the caller passes (the render's current one) and noise."""

    def __init__(self, width: int, height: int, noise_seed):
        self.cols, self.rows, self.res = grid_shape(width, height)
        self.noise = Noise2(noise_seed)
        self._grids: dict = {}

    def activate(self, name: str, t: float, custom: dict, rng2: Stream2, refresh: bool = False) -> None:
        """``field(name)`` (generates it the first time) or ``refreshField(t)`` (generates it anew)."""
        if name in custom:
            self._grids[name] = (id(custom[name]), custom_field(custom[name], self.cols, self.rows))
        elif refresh or name not in self._grids:
            self._grids[name] = (None, builtin_field(name, t, self.cols, self.rows, rng2, self.noise))

    def get(self, name: str, t: float, custom: dict, rng2: Stream2) -> np.ndarray:
        hit = self._grids.get(name)
        if hit is None or (name in custom and hit[0] != id(custom[name])):
            self.activate(name, t, custom, rng2)
        return self._grids[name][1]
