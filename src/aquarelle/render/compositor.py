"""The canvas and p5.brush's two masks, flushed exactly when p5.brush's ``Mix.blend`` flushes them.

p5.brush paints every fill, wash and stroke into a mask first (one for fills
and washes, one for brush strokes) and blends a mask into the canvas only when
the colour changes, when drawing switches between brush and fill, or at the
end of the frame. Strokes of one colour therefore pile up and saturate before
they are blended. ``Compositor.blend`` is a port of that state machine.
"""

from __future__ import annotations

import copy
from typing import Callable

import numpy as np

from ..brush.colors import rgb_of
from .mix import Work, composite_mask, make_work

_BIG = 1 << 30


def paint_background(canvas: np.ndarray, rgb) -> None:
    """Fill an H x W x 3 canvas with one colour: one row, then rows copied (a broadcast assignment of a
    3-tuple is ~70x slower, about 1 ms at 600x600)."""
    canvas[0, :] = rgb
    canvas[1:] = canvas[0]


def empty_dirty() -> np.ndarray:
    return np.array([_BIG, _BIG, -_BIG, -_BIG], np.int64)


class Compositor:
    def __init__(self, width: int, height: int, background: tuple[int, int, int], work: Work | None = None):
        self.canvas = np.empty((height, width, 3), np.uint8)
        paint_background(self.canvas, background)
        # the fill mask sums log(1 - alpha) of washes; the brush mask holds 8-bit alpha (0-255, as p5.brush's does)
        self.masks = {"fill": np.zeros((height, width), np.float32), "brush": np.zeros((height, width), np.float32)}
        self.dirty = {"fill": empty_dirty(), "brush": empty_dirty()}
        self.is_brush: bool | None = None
        self.just_changed = False
        self.blending = False
        self.cached: str | None = None
        # for p5.brush's first-stroke quirk (``begin``): has a fill-mask composite happened, has a stroke begun
        self.fill_blended = False
        self.stroked = False
        self.drop_fill = False
        self.work = work if work is not None else make_work(height, width)
        # called with a composite's box area in pixels before it is scanned, to charge the renderer's budget (which
        # raises when it is spent): a composite scans its mask's whole dirty box however little is painted in it, so
        # 19,000 alternating-colour lines each flushing a canvas-wide box took 7 s
        self.charge: Callable[[float], None] | None = None
        # the stroke kernels' state (``strokes.StrokeStream.pstate``), whose third entry says the brush mask's
        # dirty rect is NaN in p5.brush: its pending strokes composite nothing until the mask is cleared
        self.stroke_state: np.ndarray | None = None

    def __deepcopy__(self, memo) -> "Compositor":
        """A copy that can be finished on its own (tools mode flushes a copy per step); ``work`` is scratch
        that no composite reads before writing, so the copy shares it instead of copying ~10 MB."""
        new = copy.copy(self)
        new.charge = None  # a copy flushed for a step's image is not charged: the painter's budget counts a full render
        new.canvas = self.canvas.copy()
        new.masks = {k: v.copy() for k, v in self.masks.items()}
        new.dirty = {k: v.copy() for k, v in self.dirty.items()}
        if self.stroke_state is not None:  # (the copy's flush must not clear the painter's own flag)
            new.stroke_state = self.stroke_state.copy()
        return new

    def drawn(self, which: str) -> bool:
        d = self.dirty[which]
        return bool(d[2] > d[0] and d[3] > d[1])

    def clear(self, which: str) -> None:
        d = self.dirty[which]
        if d[2] > d[0] and d[3] > d[1]:
            self.masks[which][max(d[1], 0):d[3], max(d[0], 0):d[2]] = 0.0
        self.dirty[which] = empty_dirty()
        if which == "brush" and self.stroke_state is not None:
            self.stroke_state[2] = 0.0

    def _lost(self, which: str) -> bool:
        """Whether p5.brush's rect for this mask is NaN (``stroke_state``), so compositing it paints nothing."""
        return which == "brush" and self.stroke_state is not None and self.stroke_state[2] != 0.0

    def apply(self, which: str) -> None:
        if not self.drawn(which):
            if self._lost(which):
                self.clear(which)
            return
        if self.cached is not None and not (which == "fill" and self.drop_fill) and not self._lost(which):
            self._charge(self.dirty[which])
            composite_mask(self.canvas, self.masks[which], (0, 0), self.dirty[which], rgb_of(self.cached),
                           which == "brush", self.work)
            if which == "fill":
                self.fill_blended = True
        self.clear(which)

    def _charge(self, d: np.ndarray) -> None:
        if self.charge is not None:
            h, w = self.canvas.shape[:2]
            self.charge(float(max(0, min(d[2], w) - max(d[0], 0)) * max(0, min(d[3], h) - max(d[1], 0))))

    def painted_fill(self) -> None:
        """A watercolour fill composites itself onto the canvas (``fill.paint_fill``), not through the fill mask;
        for ``begin``'s first-stroke quirk it counts as a fill-mask composite all the same, as in p5.brush."""
        self.fill_blended = True

    def blend(self, color: str | None, last: bool = False) -> None:
        brush_mask = self.is_brush is True
        mine, other = ("brush", "fill") if brush_mask else ("fill", "brush")
        changed = color is not None and self.cached != color
        if not self.blending and color is not None:
            self.blending = True
            self.cached = color
            self.clear("brush")
        if last or changed:
            if self.just_changed:
                self.apply(other)
                self.just_changed = False
            if self.blending:
                self.apply(mine)
            if color is not None:
                self.cached = color
            if last:
                self.blending = False
                self.cached = None

    def begin(self, brush: bool, color: str) -> None:
        """Switch drawing mode (brush or fill/wash) and announce the colour, as each p5.brush draw does.

        p5.brush 2.2.2 in Chromium loses one composite: the fill mask flushed by the frame's first stroke (a wash
        still pending when the first line is drawn) is never painted if a fill-mask composite happened before it
        in the frame. Measured: wash, wash, line paints only the first wash; wash, line paints it; wash, line,
        wash, wash, line paints all three; a fill, a wash, then a line loses the wash. The mask is cleared all the
        same. We do what it does, so a model's painting looks here as its exported sketch does in a browser."""
        if self.is_brush is not brush:
            self.just_changed = True
        self.is_brush = brush
        first = brush and not self.stroked
        if brush:
            self.stroked = True
        self.drop_fill = first and self.fill_blended
        self.blend(color)
        self.drop_fill = False

    def finish(self) -> np.ndarray:
        """p5.brush's end-of-frame flush; returns the canvas."""
        self.blend(None, last=True)
        self.apply("fill")
        self.apply("brush")
        return self.canvas
