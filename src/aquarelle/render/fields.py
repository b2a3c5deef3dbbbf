"""Vector fields: p5.brush's seven built-in generators and custom sampled grids.

The grid is p5.brush's: cells of 1% of the canvas width covering twice the
canvas (from -W/2, -H/2), angles in degrees, indexed [column][row]. Built-in
fields are random per generation; here they are drawn from the render's seed,
so a render is deterministic. p5.brush's simplex noise is stood in for by a
seeded Perlin gradient noise of the same range.
"""

from __future__ import annotations

import math
import zlib

import numpy as np


def grid_shape(width: int, height: int) -> tuple[int, int, float]:
    res = width * 0.01
    return int(round(2 * width / res)), int(round(2 * height / res)), res


def _perlin(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """2-D gradient noise in about [-1, 1]."""
    perm = rng.permutation(256)
    perm = np.concatenate([perm, perm])
    ang = rng.random(256) * 2 * np.pi
    gx, gy = np.cos(ang), np.sin(ang)
    xi = np.floor(x).astype(np.int64)
    yi = np.floor(y).astype(np.int64)
    xf = x - xi
    yf = y - yi
    xi &= 255
    yi &= 255

    def dot(ix, iy, dx, dy):
        h = perm[perm[ix] + iy]
        return gx[h] * dx + gy[h] * dy

    def fade(t):
        return t * t * t * (t * (t * 6 - 15) + 10)

    u, v = fade(xf), fade(yf)
    n00 = dot(xi, yi, xf, yf)
    n10 = dot((xi + 1) & 255, yi, xf - 1, yf)
    n01 = dot(xi, (yi + 1) & 255, xf, yf - 1)
    n11 = dot((xi + 1) & 255, (yi + 1) & 255, xf - 1, yf - 1)
    nx0 = n00 + u * (n10 - n00)
    nx1 = n01 + u * (n11 - n01)
    return np.clip((nx0 + v * (nx1 - nx0)) * 1.414, -1, 1)


def _sin(d):
    return np.sin(np.radians(d))


def _cos(d):
    return np.cos(np.radians(d))


def builtin_field(name: str, t: float, cols: int, rows: int, rng: np.random.Generator) -> np.ndarray:
    """One generation of a built-in field: (cols, rows) float32 degrees."""
    c, r = np.meshgrid(np.arange(cols, dtype=np.float64), np.arange(rows, dtype=np.float64), indexing="ij")

    def ri(a, b):
        return int(math.trunc(a + rng.random() * (b - a)))

    if name == "hand":
        bs, ba = 0.2 + 0.6 * rng.random(), ri(5, 10)
        off = rng.integers(15, 25, size=c.shape)
        angle = 0.5 * ba * _sin(bs * r * c + off)
        out = 0.2 * angle * math.cos(math.radians(t)) + _perlin(c * 0.93 + 0.37, r * 0.93 + 0.11, rng) * ba * 0.7
    elif name == "curved":
        ar = ri(-10, 10)
        if ri(0, 100) % 2 == 0:
            ar = -ar
        n = _perlin(c * 0.02 + t * 0.03, r * 0.02 + t * 0.03, rng)
        out = 3 * (-ar + n * 2 * ar)
    elif name == "zigzag":
        ar = ri(-30, -15) + abs(44 * math.sin(math.radians(t)))
        if ri(0, 100) % 2 == 0:
            ar = -ar
        out = np.empty((cols, rows))
        angle, dif = 0.0, ar
        for ci in range(cols):
            row = np.empty(rows)
            for ri_ in range(rows):
                row[ri_] = angle
                angle += dif
                dif = -dif
            out[ci] = row
            angle += dif
            dif = -dif
    elif name == "waves":
        sr = ri(10, 15) + 5 * math.sin(math.radians(t))
        cr = ri(3, 6) + 3 * math.cos(math.radians(t))
        ba = ri(20, 35)
        out = _sin(sr * c) * ba * _cos(r * cr) + rng.integers(-3, 3, size=c.shape)
    elif name == "seabed":
        bs, ba = 0.4 + 0.4 * rng.random(), ri(18, 26)
        out = 1.1 * ba * _sin(bs * r * c + rng.integers(15, 20, size=c.shape)) * math.cos(math.radians(t))
    elif name == "spiral":
        n = ri(5, 10)
        d = ri(0, 2) * 2 - 1
        offset = ri(65, 80)
        wx = np.zeros_like(c)
        wy = np.zeros_like(c)
        for _ in range(n):
            ax, ay = (0.1 + 0.8 * rng.random()) * cols, (0.1 + 0.8 * rng.random()) * rows
            dx, dy = c - ax, r - ay
            w = 1 / (dx * dx + dy * dy + 1)
            a = np.degrees(np.arctan2(dy, dx))
            ang = np.radians(d * (a + offset))
            wx += w * np.cos(ang)
            wy += w * np.sin(ang)
        out = np.degrees(np.arctan2(wy, wx))
    elif name == "columns":
        freq, amp = ri(3, 8), ri(25, 45)
        out = _sin(c * freq) * amp
    else:
        raise KeyError(name)
    return np.ascontiguousarray(out, dtype=np.float64)


def custom_field(grid: list, cols: int, rows: int) -> np.ndarray:
    """A sampled grid from ``addField`` (list of columns of degrees), resampled to the render's grid."""
    g = np.asarray(grid, dtype=np.float64)
    ci = np.minimum((np.arange(cols) * g.shape[0] / cols).astype(np.int64), g.shape[0] - 1)
    ri = np.minimum((np.arange(rows) * g.shape[1] / rows).astype(np.int64), g.shape[1] - 1)
    return np.ascontiguousarray(g[np.ix_(ci, ri)])


class FieldBank:
    """Field grids for one render, generated on first use and cached per (name, t)."""

    def __init__(self, width: int, height: int, seed: int):
        self.cols, self.rows, self.res = grid_shape(width, height)
        self.seed = seed
        self._cache: dict = {}

    def get(self, name: str, t: float, custom: dict) -> np.ndarray:
        key = (name, t, id(custom.get(name)))
        if key not in self._cache:
            if name in custom:
                self._cache[key] = custom_field(custom[name], self.cols, self.rows)
            else:
                rng = np.random.default_rng([self.seed & 0xFFFFFFFF, zlib.crc32(f"{name}:{t}".encode())])
                self._cache[key] = builtin_field(name, t, self.cols, self.rows, rng)
        return self._cache[key]
