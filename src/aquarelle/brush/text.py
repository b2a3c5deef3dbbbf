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


def describe(v: Any, limit: int = 80) -> str:
    """A rejected value as a sketch's author would name it: a JS object (a dict here) is "an object" with its first
    keys, a function the sandbox recorded is "a function"; anything else is ``short_repr``.

    A dict's Python repr told a sketch passing ``{toString: 5}`` that it had passed ``dict``."""
    if isinstance(v, dict):
        if v.keys() == {"__function__"}:
            return "a function"
        keys = list(v)
        shown = ", ".join(short_repr(k, 24) for k in keys[:4]) + (", ..." if len(keys) > 4 else "")
        return clip(f"an object (keys {shown})" if keys else "an empty object", limit)
    return short_repr(v, limit)
