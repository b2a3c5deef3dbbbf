"""Shared numba helpers: the compiled-kernel decorator and a small seeded PRNG.

Kernels are compiled once and cached on disk (``cache=True``), so only the very
first render on a machine pays the compile. The PRNG is xorshift64* with its
state in a one-element uint64 array, so compiled code draws the same numbers
for the same seed on every machine: renders are byte-identical.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numba
import numpy as np


def _invalidate_stale_cache() -> None:
    """Numba keys each cached kernel on its own file only, so a kernel that calls one in another module
    would keep the old callee after an edit. Drop this package's cache when any of its sources changed."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in sorted(here.glob("*.py")))).hexdigest()
    cache = here / "__pycache__"
    stamp = cache / "kernels.stamp"
    try:
        if stamp.is_file() and stamp.read_text() == digest:
            return
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba falls back to its own cache dir
        pass


_invalidate_stale_cache()
njit = numba.njit(cache=True, nogil=True)
#: For the 38-band spectral loops only: lets LLVM vectorise the band sums (results stay deterministic on a
#: machine; another CPU's vector width may differ in the last bit of a colour before rounding to 8 bits).
#: Their divisors are never zero (reflectance >= 1e-4, total concentration >= 1e-12), so they also take
#: numpy's error model (see ``njit_vec``).
njit_fast = numba.njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
#: For branch-free loops LLVM should vectorise: numpy's error model drops the per-division zero check (a zero
#: divisor gives inf/nan instead of raising), which is what blocks vectorising. Values are otherwise unchanged.
njit_vec = numba.njit(cache=True, nogil=True, error_model="numpy")
#: Tiny helpers called per vertex, disc or pixel with an array argument: inlined in numba's IR, so a call
#: does not pay an atomic reference-count increment and decrement on the array.
njit_inline = numba.njit(cache=True, nogil=True, inline="always")

_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S11 = np.uint64(11)
_MUL = np.uint64(0x2545F4914F6CDD1D)


@njit_inline
def rnd(st):
    """Uniform float in [0, 1)."""
    x = st[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    st[0] = x
    return float((x * _MUL) >> _S11) * (1.0 / 9007199254740992.0)


@njit_inline
def rr(st, a, b):
    return a + rnd(st) * (b - a)


@njit_inline
def gauss(st, mean, sd):
    u = 1.0 - rnd(st)
    v = rnd(st)
    return mean + sd * math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v)


def make_state(seed: int) -> np.ndarray:
    """A PRNG state from any integer seed (never zero)."""
    s = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    s ^= s >> 31
    return np.array([s or 1], dtype=np.uint64)
