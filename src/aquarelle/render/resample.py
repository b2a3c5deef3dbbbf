"""A rendered canvas at another size: both backends paint the program's own canvas and resample it.

Re-painting at the target size is not the same painting: a thin pencil's stamp is clamped to one pixel
whatever the scale, and p5.brush's faint stamps add up in 8-bit steps, so at 256 px a 600 px painting's
pencil and hatch work came out two to three times darker (``bench/sketches/hatching.js``: mean ink 53 against
25), and the scorers judged heavier lines than the painting has. The browser backend always resampled.
"""

from __future__ import annotations

import numbers

import numpy as np

#: The largest size an image is resampled to (``aquarelle render --size`` has the same bound): 4096 x 4096 is the
#: most pixels a canvas may have (``native.MAX_PIXELS``); size=1,000,000 asked for 3 TB and the kernel killed us.
MAX_SIZE = 4096


def checked_size(size: object) -> int | None:
    """``size`` as an int 1-``MAX_SIZE`` (None stays None), or ValueError naming it: a bool, a fraction or a
    string is not a size (True made a 1 x 1 image, 255.9 a 255 px one, "abc" a bare int() error)."""
    if size is None:
        return None
    ok = isinstance(size, numbers.Integral) and not isinstance(size, bool)
    if not ok and isinstance(size, float) and size.is_integer():
        ok = True
    if not ok or not 1 <= int(size) <= MAX_SIZE:
        raise ValueError(f"size must be a whole number of pixels, 1-{MAX_SIZE}, got {size!r}")
    return int(size)


def render_size(size: object) -> int | None:
    """``checked_size`` as both renderers refuse a size, before any work: one ``RenderError`` line."""
    from .errors import RenderError

    try:
        return checked_size(size)
    except ValueError as e:
        raise RenderError(f"render: {e}") from None


def resample(img: np.ndarray, size: int | None) -> np.ndarray:
    """``img`` (H x W x 3 uint8) as size x size; unchanged when ``size`` is None or already its size.

    Down by area averaging (each pixel the mean of those it covers), up bilinear: both keep a painting's ink.
    Lanczos, which the browser backend used before, rings around a dark line and the white side clips, so
    pencil work came out 13% darker at 256 px."""
    size = checked_size(size)
    if size is None:
        return img
    return _resize(img, size, size)


def fit(img: np.ndarray, size: int | None) -> np.ndarray:
    """``img`` with its longer side ``size`` and its shape kept, resampled as ``resample`` does: what a person
    asks for with ``aquarelle render --size`` (an 800 x 400 canvas came out a 600 x 600 PNG, its circles tall
    ellipses). Scoring keeps ``resample``'s square: the scorers and the references are square."""
    size = checked_size(size)
    if size is None:
        return img
    h, w = img.shape[:2]
    if w >= h:
        return _resize(img, size, max(1, round(size * h / w)))
    return _resize(img, max(1, round(size * w / h)), size)


def _resize(img: np.ndarray, w: int, h: int) -> np.ndarray:
    if img.shape[0] == h and img.shape[1] == w:
        return img
    from PIL import Image

    down = w < img.shape[1] or h < img.shape[0]
    out = Image.fromarray(img).resize((w, h), Image.BOX if down else Image.BILINEAR)
    return np.asarray(out, dtype=np.uint8).copy()
