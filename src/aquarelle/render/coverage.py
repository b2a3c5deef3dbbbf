"""How much of a canvas is painted: the one definition every part of aquarelle uses.

A pixel is painted when any channel differs from the background by more than
``COVERAGE_TOLERANCE`` (out of 255). The tolerance absorbs PNG/colour-space
rounding and the faintest watercolour haze, so a canvas holding only its
background is exactly 0.0 and a barely-visible wash does not count as painting.
"""

from __future__ import annotations

import numpy as np

#: Max per-channel difference (0-255) from the background that still counts as background.
COVERAGE_TOLERANCE = 8


def coverage(img: np.ndarray, background: tuple[int, int, int] | str = (255, 255, 255)) -> float:
    """Fraction of pixels whose max channel difference from ``background`` (RGB, or any colour a sketch may
    write: "#fffceb", "cornsilk") exceeds the tolerance."""
    if isinstance(background, str):  # (its first three characters were read as numbers: a bare int() error)
        from ..brush.colors import parse_color, rgb_of

        background = rgb_of(parse_color(background)[0])
    a = np.asarray(img)
    if a.ndim != 3 or a.shape[2] < 3:
        raise ValueError(f"coverage: expected an H x W x 3 image, got shape {a.shape}")
    if a.shape[0] == 0 or a.shape[1] == 0:
        return 0.0
    bg = np.asarray(background[:3], dtype=np.int16)
    diff = np.abs(a[..., :3].astype(np.int16) - bg).max(axis=2)
    return float(np.count_nonzero(diff > COVERAGE_TOLERANCE)) / float(diff.size)
