"""Small image helpers shared by the scorers: PNG encoding, hashing, downsizing."""

from __future__ import annotations

import base64
import hashlib
import io

import numpy as np


def as_rgb(image: np.ndarray) -> np.ndarray:
    """H x W x 3 uint8 (drops alpha, expands grey); a clear error for anything else."""
    a = np.asarray(image)
    if a.ndim == 2:
        a = np.repeat(a[:, :, None], 3, axis=2)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise ValueError(f"image must be H x W x 3 (got shape {a.shape})")
    if a.dtype != np.uint8:
        a = np.clip(a, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(a[:, :, :3])


def resize(image: np.ndarray, size: int) -> np.ndarray:
    """Area-average down (or bilinear up) to size x size, as the renderers resample (``render.resample``)."""
    from ..render.resample import resample

    return resample(as_rgb(image), size)


def png_bytes(image: np.ndarray, size: int | None = None) -> bytes:
    from PIL import Image

    a = resize(image, size) if size else as_rgb(image)
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="PNG", optimize=False, compress_level=3)
    return buf.getvalue()


def data_url(image: np.ndarray, size: int | None = None) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(image, size)).decode("ascii")


def decode_png(data: bytes | str) -> np.ndarray:
    """PNG bytes, base64 text or a data URL -> H x W x 3 uint8."""
    from PIL import Image

    if isinstance(data, str):
        if data.startswith("data:"):
            data = data.split(",", 1)[1]
        data = base64.b64decode(data)
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"))


def digest(image: np.ndarray) -> str:
    a = as_rgb(image)
    return hashlib.sha1(a.tobytes() + str(a.shape).encode()).hexdigest()


def load_png(path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def save_png(image: np.ndarray, path) -> None:
    from PIL import Image

    Image.fromarray(as_rgb(image)).save(path)
