"""p5.brush 2.2.2's random streams (``core/utils.js``), draw for draw.

p5.brush draws from two Mulberry32 generators seeded from the text of the seed:
``rng`` (fills, strokes, hatching) and ``rng2`` (seed + ":2": circle and plot
geometry, fields, mass). Its gaussian is Box-Muller on 0.25-degree float32
sin/cos tables, keeping the second value for the next call, and reseeding fills
two pools of 512 gaussians that every fill's ``grow`` samples. The native fill
draws the same numbers in the same order, so a painting rendered natively and
by the real p5.brush under the same seed grows the same polygons and punches
the same holes: the two differ by rasterisation, not by the luck of the draw.

Mulberry32's state advances by a constant, so a block of draws is computed
vectorised (``Stream2.block``) for the plot walks that take one per pixel step.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import njit, njit_inline, njit_vec

_M32 = 0xFFFFFFFF
_INC = 0x6D2B79F5
_TO_UNIT = 2.3283064365386963e-10  # 2^-32
#: p5.brush's sin/cos tables: 1440 steps of 0.25 degrees, stored as float32 (``cLookup``/``sLookup``), and one
#: entry past them, NaN: ``angleToIdx`` gives 1440 for an angle a hair below 0 (``lut_index``), and JavaScript
#: reads ``undefined`` there, which is NaN once stored in ``cossin``'s Float32Array or used in arithmetic.
LUT_COS = np.append(np.cos(np.arange(1440) * (2.0 * math.pi / 1440)).astype(np.float32).astype(np.float64), np.nan)
LUT_SIN = np.append(np.sin(np.arange(1440) * (2.0 * math.pi / 1440)).astype(np.float32).astype(np.float64), np.nan)
POOL = 512


def js_string(seed) -> str:
    """``String(seed)`` as JavaScript writes it, for the seeds programs carry (integers, floats, text)."""
    if isinstance(seed, bool):
        return "true" if seed else "false"
    if isinstance(seed, float):
        if seed.is_integer() and abs(seed) < 1e21:
            return str(int(seed))
        return repr(seed)
    return str(seed)


def _imul(a: int, b: int) -> int:
    return (a * b) & _M32


def hash_seed(seed) -> int:
    """p5.brush's ``_hashSeed``: the seed's text folded to a non-zero uint32."""
    h = 0
    for ch in _utf16_units(js_string(seed)):
        h = _imul(h ^ ch, 0x9E3779B9)
        h ^= h >> 15
    h = _imul(h ^ (h >> 16), 0x85EBCA6B)
    h = _imul(h ^ (h >> 13), 0xC2B2AE35)
    return (h ^ (h >> 16)) or 1


def _utf16_units(s: str) -> list[int]:
    b = s.encode("utf-16-le")
    return [b[i] | (b[i + 1] << 8) for i in range(0, len(b), 2)]


def make_state(seed, stream: str = "") -> np.ndarray:
    """A generator's state: [Mulberry32 state, gaussian cached?, cached value] (float64, exact for uint32)."""
    return np.array([float(hash_seed(js_string(seed) + stream)), 0.0, 0.0])


@njit_inline
def mulberry(s):
    """Mulberry32's output for state ``s`` (already advanced): a uniform float in [0, 1)."""
    t = ((s ^ (s >> 15)) * (s | 1)) & _M32
    t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & _M32)) & _M32
    return float(t ^ (t >> 14)) * _TO_UNIT


@njit_inline
def advance(s, k):
    """The stream's state ``s`` after k draws."""
    return (s + k * _INC) & _M32


@njit_inline
def between(u, a, b):
    """A uniform u scaled to [a, b), as every draw (``rr``, ``draw``, and ``draws``' numbers) is."""
    return a + u * (b - a)


@njit_inline
def draw(s, a, b):
    """``rr(st, a, b)`` on a state held in a local integer: returns (next state, the draw). Hot loops take
    ``s = np.int64(st[0])``, draw with ``s, u = draw(s, a, b)`` and store ``st[0] = s`` after: no float
    round trip through memory per draw (the grow loop ran twice as fast)."""
    s = advance(s, 1)
    return s, between(mulberry(s), a, b)


@njit_vec
def draws(s, out):
    """The stream's next ``out.shape[0]`` uniforms from state ``s`` (``rnd``'s values, in order; the state is
    left alone: after k of them it is ``advance(s, k)``). Mulberry32 hashes a counter, so the numbers do not
    depend on each other and this loop runs on the vector units: a third of a scalar draw's cost, for the
    loops that draw several numbers per step or vertex (pencil strokes, a fill's ``_grow``)."""
    for k in range(out.shape[0]):
        out[k] = mulberry(advance(s, k + 1))


@njit_inline
def rnd(st):
    """Mulberry32: a uniform float in [0, 1)."""
    s = advance(np.int64(st[0]), 1)
    st[0] = s
    return mulberry(s)


@njit_inline
def rr(st, a, b):
    return between(rnd(st), a, b)


@njit_inline
def lut_index(angle):
    """p5.brush's ``angleToIdx``: degrees to a table index, truncating as ``~~`` does, so NaN (and the NaN that
    an infinite angle's ``% 360`` gives) is 0.

    The index is in [0, 1440]. An angle a hair below 0 (a field's -3e-15, say) gives 1440, as in p5.brush:
    ``angle + 360`` rounds to 360. The tables' entry there is NaN, as JavaScript's read past its table is, so a
    walker that turns by such an angle moves to NaN and stops there, and the rest of its stroke is not drawn,
    as in the browser. (Before the NaN entry, that read went past the end of the table, and what it found
    differed between a freshly compiled kernel and a cached one.)"""
    if angle < 0.0:
        if angle >= -360.0:
            return int((angle + 360.0) * 4.0)
        v = angle % 360.0  # JS: a % 360, + 360 when negative (Python's % is already that)
    elif angle < 360.0:
        return int(angle * 4.0)
    elif angle < 720.0:
        return int((angle - 360.0) * 4.0)
    elif angle < 1080.0:
        return int((angle - 720.0) * 4.0)
    else:
        v = angle % 360.0  # NaN lands here too (every comparison is false)
    return int(v * 4.0) if v == v else 0


def cos_deg(angle: float) -> float:
    """p5.brush's ``cos`` (degrees, by table) for geometry built in Python."""
    return float(LUT_COS[lut_index.py_func(float(angle))])


def sin_deg(angle: float) -> float:
    """p5.brush's ``sin`` (degrees, by table)."""
    return float(LUT_SIN[lut_index.py_func(float(angle))])


@njit_inline
def js_hypot(a, b):
    """``Math.hypot`` as V8 computes it: both scaled by the larger, then sqrt of the sum of squares, times it.

    It can differ from a correctly rounded hypot (Python's) in the last bit, and p5.brush rounds and ceils
    lengths (``dist``, the fill's trim bridge), so a length that is a whole multiple must come out the same."""
    a = abs(a)
    b = abs(b)
    if a != a or b != b:
        return math.inf if (a == math.inf or b == math.inf) else math.nan
    m = max(a, b)
    if m == math.inf:
        return math.inf
    if m == 0.0:
        return 0.0
    x = a / m
    y = b / m
    return math.sqrt(x * x + y * y) * m


def dist(x1: float, y1: float, x2: float, y2: float) -> float:
    """p5.brush's ``dist`` (``Math.hypot``, as V8 computes it) for geometry built in Python."""
    return js_hypot.py_func(float(x2) - float(x1), float(y2) - float(y1))


@njit_inline
def gauss(st, mean, sd):
    """p5.brush's ``gaussian``: Box-Muller on the tables, the second value kept for the next call."""
    s, kept, kv, g = gauss_draw(np.int64(st[0]), st[1] != 0.0, st[2])
    st[0] = s
    st[1] = 1.0 if kept else 0.0
    st[2] = kv
    return g * sd + mean


@njit_inline
def gauss_draw(s, kept, kv):
    """``gauss(st, 0, 1)`` on a stream held in locals (state, whether a value is kept, the kept value):
    returns them updated and the draw (scale and shift it as ``gauss`` does: ``g * sd + mean``)."""
    if kept:
        return s, False, kv, kv
    s, u = draw(s, 0.0, 1.0)
    s, v = draw(s, 0.0, 1.0)
    r = math.sqrt(-2.0 * math.log(1.0 - u))
    i = lut_index(360.0 * v)
    return s, True, r * LUT_SIN[i], r * LUT_COS[i]


@njit
def fill_pools(st):
    """The two gaussian pools p5.brush refills on every seed (``_fillGaussianPools``), as (2, 512)."""
    pools = np.empty((2, POOL))
    for i in range(POOL):
        pools[0, i] = gauss(st, 0.5, 0.2)
        pools[1, i] = gauss(st, 0.0, 0.02)
    return pools


class Uniform:
    """``rr(a, b)`` on a compiled stream's state, for the few draws made in Python (hatch jitter and weights)."""

    def __init__(self, st: np.ndarray):
        self.st = st

    def uniform(self, a: float, b: float) -> float:
        return rr(self.st, a, b)


class Stream2:
    """``rng2`` in Python, for the plot geometry drawn outside compiled code (circles, ``genPol``)."""

    def __init__(self, seed):
        self.s = hash_seed(js_string(seed) + ":2")

    def random(self, size: int | None = None):
        """One draw, or ``size`` of them as an array (numpy's ``Generator.random`` signature)."""
        if size is not None:
            return self.block(int(size))
        # one draw in Python integers (``mulberry`` uncompiled): a numpy block of one costs ten times as much
        self.s = (self.s + _INC) & _M32
        return mulberry.py_func(self.s)

    def block(self, n: int) -> np.ndarray:
        """The next n draws at once (``draws``: Mulberry32's state is a counter, so the block is vectorised)."""
        out = np.empty(n)
        draws(self.s, out)
        self.s = int(advance.py_func(self.s, n))
        return out
