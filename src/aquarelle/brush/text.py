"""Client text in error lines, clipped: a megabyte of colour or method name is not echoed back whole."""

from __future__ import annotations

from typing import Any


def clip(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, ending in "..." when cut."""
    return text if len(text) <= limit else text[:max(limit - 3, 0)] + "..."


def short_repr(v: Any, limit: int = 80) -> str:
    """``repr(v)``, clipped."""
    try:
        r = repr(v)
    except ValueError:  # an int past Python's digit limit for str()
        r = f"<{type(v).__name__} too large to print>"
    return clip(r, limit)
