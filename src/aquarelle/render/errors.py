"""The renderer's one exception: what the program caused (never an infrastructure failure)."""

from __future__ import annotations


class RenderError(ValueError):
    """A program the renderer refuses: degenerate geometry or over the work budget (the gate's 0)."""
