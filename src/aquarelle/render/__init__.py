"""Renderers: the command program to an image.

``render_program`` picks a backend: ``native`` (default, numpy + numba, the
p5.brush look without a browser) or ``browser`` (the real p5.brush in headless
Chromium, the reference). Heavy modules load on first use so ``aquarelle
--help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import RenderError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ..brush.program import Program

__all__ = ["render_program", "background_of", "RenderError", "NATIVE_LOOK"]

#: Changes whenever the native renderer paints a program differently, so caches of its images (the reference
#: pool's) are redrawn. 2: p5.brush's own random streams; 3: genPol in p5.brush's frame; 4: lengths by V8's
#: Math.hypot; 5: the brush mask in 8 bits, as p5.brush's framebuffer; 6: clip a no-op, as p5.brush's; 7: the
#: first stroke loses a pending wash, as in p5.brush; 8: mass from p5.brush's streams (all 2026-11-30).
NATIVE_LOOK = 8

_BROWSER = None


def background_of(program: "Program") -> tuple[int, int, int]:
    """The canvas colour coverage is measured against: the last ``background`` call, else white."""
    from ..brush.colors import rgb_of

    bg = (255, 255, 255)
    for c in program.commands:
        if c.method == "background" and c.args:
            bg = rgb_of(c.args[0])
    return bg


def render_program(program: "Program", backend: str = "native", size: int | None = None,
                   seed: int | None = None) -> "np.ndarray":
    """Render with the named backend; H x W x 3 uint8."""
    if backend == "native":
        from .native import render

        return render(program, size=size, seed=seed)
    if backend == "browser":
        global _BROWSER
        from .browser import BrowserRenderer

        if _BROWSER is None:
            _BROWSER = BrowserRenderer()
        return _BROWSER.render(program, size=size, seed=seed)
    raise ValueError(f'unknown render backend {backend!r} (use "native" or "browser")')
