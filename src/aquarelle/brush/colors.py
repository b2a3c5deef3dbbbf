"""Colour parsing shared by every front end.

p5's ``createColor`` accepts CSS strings (hex, names, ``rgb()``), a grey number,
or r, g, b numbers. We normalise every colour to ``#rrggbb`` so stored programs
compare and round-trip exactly. Pillow's ImageColor already knows the CSS names
and functional forms, so we lean on it instead of a hand-written table.
"""

from __future__ import annotations

import math
from typing import Any

from PIL import ImageColor

from .text import describe, short_repr


class ColorError(ValueError):
    """A value that is not a colour p5 would accept."""


class NotAColor(ColorError):
    """A value of no colour form at all (an object, a function, null): the message is a predicate, "must be a
    colour ..., got ...", for the caller to put the argument's name before."""


def _channel(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ColorError(f"{what} must be a number, got {describe(v)}")
    if not math.isfinite(v):
        raise ColorError(f"{what} must be finite, got {short_repr(v)}")
    if v < 0 or v > 255:
        raise ColorError(f"{what} must be in 0-255, got {short_repr(v)}")
    return int(round(v))


def to_hex(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


def parse_color(value: Any) -> tuple[str, int | None]:
    """Return (``#rrggbb``, alpha or None) for any single-value colour form.

    Accepts '#rgb', '#rrggbb', '#rrggbbaa', CSS names, 'rgb(...)'/'rgba(...)'/'hsl(...)',
    a grey level number, or a list [r, g, b] / [r, g, b, a].
    """
    if isinstance(value, str):
        s = value.strip()
        if not s:
            raise ColorError("colour string is empty")
        try:
            c = ImageColor.getrgb(s)
        except ValueError:
            raise ColorError(f"unknown colour {short_repr(value)} (use hex like '#d7263d', a CSS name or rgb())") \
                from None
        alpha = c[3] if len(c) == 4 else None
        if alpha == 255 and not (s.startswith("#") and len(s) in (5, 9)) and not s.lower().startswith(("rgba", "hsla")):
            alpha = None
        return to_hex(c[:3]), alpha
    if isinstance(value, (list, tuple)):
        if len(value) not in (3, 4):
            raise ColorError(f"colour list must be [r, g, b] or [r, g, b, a], got {len(value)} values")
        chans = [_channel(v, f"colour channel {i}") for i, v in enumerate(value)]
        return to_hex(tuple(chans[:3])), (chans[3] if len(chans) == 4 else None)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        g = _channel(value, "grey level")
        return to_hex((g, g, g)), None
    raise NotAColor(f"must be a colour (hex string, CSS name, grey number or [r, g, b]), got "
                    f"{'null' if value is None else str(value).lower() if isinstance(value, bool) else describe(value)}")


def rgb_of(hex_color: str) -> tuple[int, int, int]:
    """'#rrggbb' -> (r, g, b) ints."""
    h = hex_color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
