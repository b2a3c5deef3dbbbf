"""A rendered canvas at another size: both backends paint the program's own canvas and resample it.

Re-painting at the target size is not the same painting: a thin pencil's stamp is clamped to one pixel
whatever the scale, and p5.brush's faint stamps add up in 8-bit steps, so at 256 px a 600 px painting's
pencil and hatch work came out two to three times darker (``bench/sketches/hatching.js``: mean ink 53 against
25), and the scorers judged heavier lines than the painting has. The browser backend always resampled.
"""

from __future__ import annotations

import numpy as np


def resample(img: np.ndarray, size: int | None) -> np.ndarray:
    """``img`` (H x W x 3 uint8) as size x size; unchanged when ``size`` is None or already its size.

    Down by area averaging (each pixel the mean of those it covers), up bilinear: both keep a painting's ink.
    Lanczos, which the browser backend used before, rings around a dark line and the white side clips, so
    pencil work came out 13% darker at 256 px."""
    if size is None:
        return img
    size = int(size)
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    if img.shape[0] == size and img.shape[1] == size:
        return img
    from PIL import Image

    down = size < img.shape[0] or size < img.shape[1]
    out = Image.fromarray(img).resize((size, size), Image.BOX if down else Image.BILINEAR)
    return np.asarray(out, dtype=np.uint8).copy()
