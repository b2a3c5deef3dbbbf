"""Shared numba helpers: the compiled-kernel decorators.

Kernels are compiled once and cached on disk (``cache=True``), so only the very
first render on a machine pays the compile. (The seeded random streams are
p5.brush's own, in ``brush_random``.)
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numba
import numpy as np


def _kernel_sources(here: Path) -> list[Path]:
    """The modules compiled code can depend on: those that use ``njit``, and the package modules they import,
    transitively (a constant a kernel reads is frozen into it). An edit elsewhere (the CLI, the browser
    backend, the painter in ``native``) then keeps the cache instead of costing every process a recompile."""
    text = {p.stem: p.read_text(encoding="utf-8") for p in here.glob("*.py")}
    todo, seen = [k for k, t in text.items() if "njit" in t], set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        for mod, names in re.findall(r"^from \.(\w*) import \(?([\w, ]+)", text[k], re.M):
            todo += [m for m in ([mod] if mod else [n.strip() for n in names.split(",")]) if m in text]
    return [here / f"{k}.py" for k in sorted(seen)]


def _invalidate_stale_cache() -> None:
    """Numba keys each cached kernel on its own file only, so a kernel that calls one in another module
    would keep the old callee after an edit. Drop this package's cache when any kernel source changed."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in _kernel_sources(here))).hexdigest()
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
#: For the spectral band loops only: lets LLVM vectorise the band sums (results stay deterministic on a
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


@njit_inline
def uidx(i):
    """An index known to be >= 0, made unsigned: numba then indexes without its negative-index wraparound
    test, so loops over ``a[q, uidx(c0 + j)]`` vectorise with plain loads. Hot per-row loops index 2-D arrays
    this way instead of through row views, whose reference counts numba does not always prune (an atomic
    increment and decrement per view)."""
    return np.uint64(i)
