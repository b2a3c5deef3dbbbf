"""The preference term: ``local`` (a deterministic aesthetic proxy) or ``hpsv3`` (see hps_client.py).

The local proxy scores the picture as a whole, the way a general "do people like
this image" model does, from features the critic (critic.py) does not use:
- colourfulness (Hasler and Süsstrunk's opponent-colour statistic): lively but not neon,
- contrast (RMS of luminance): readable but not brutal,
- brightness: watercolour on paper stays light,
- balance: visual weight spread left/right and top/bottom,
- complexity: the share of 8x8 blocks with detail; empty and busy both lose.
Each has a preferred band; the score is a logistic of the weighted distance from
those bands, in (0, 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .imageio import as_rgb, resize

FEATURE_SIZE = 128


@dataclass(frozen=True)
class PreferenceFeatures:
    colourfulness: float
    contrast: float
    brightness: float
    balance: float     # 0 = perfectly balanced weight, 1 = all on one side
    complexity: float  # share of 8x8 blocks with visible detail


def preference_features(image: np.ndarray, size: int = FEATURE_SIZE) -> PreferenceFeatures:
    f = resize(as_rgb(image), size).astype(np.float32)
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    rg, yb = r - g, 0.5 * (r + g) - b
    colourfulness = float(np.hypot(rg.std(), yb.std()) + 0.3 * np.hypot(rg.mean(), yb.mean())) / 100.0
    lum = (0.299 * r + 0.587 * g + 0.114 * b) / 255.0
    contrast = float(lum.std())
    brightness = float(lum.mean())
    weight = 1.0 - lum  # darker = heavier
    tot = float(weight.sum()) + 1e-6
    h = size // 2
    lr = abs(float(weight[:, :h].sum() - weight[:, h:].sum())) / tot
    tb = abs(float(weight[:h].sum() - weight[h:].sum())) / tot
    balance = max(lr, tb)
    blocks = lum.reshape(size // 8, 8, size // 8, 8).std(axis=(1, 3))
    complexity = float((blocks > 0.02).mean())
    return PreferenceFeatures(colourfulness, contrast, brightness, balance, complexity)


def _band(x: float, lo: float, hi: float, scale: float) -> float:
    """0 inside [lo, hi], growing linearly outside (in units of ``scale``)."""
    return max(0.0, lo - x) / scale + max(0.0, x - hi) / scale


#: feature -> (low, high, scale, weight, phrase)
BANDS = {
    "colourfulness": (0.12, 0.45, 0.10, 1.0, "colour"),
    "contrast": (0.035, 0.15, 0.02, 1.0, "contrast"),
    "brightness": (0.82, 0.99, 0.10, 1.2, "light"),
    "balance": (0.0, 0.40, 0.15, 0.6, "balance"),
    "complexity": (0.06, 0.45, 0.08, 1.0, "detail"),
}
OFFSET = 1.4  # logistic centre; plus up to 0.8 for colour, so in-band pictures still differ (GRPO needs spread)


def preference_value(f: PreferenceFeatures) -> tuple[float, str]:
    pen = {k: w * _band(getattr(f, k), lo, hi, sc) for k, (lo, hi, sc, w, _) in BANDS.items()}
    z = OFFSET + 0.8 * min(f.colourfulness, 0.4) / 0.4 - sum(pen.values())
    value = 1.0 / (1.0 + math.exp(-z))
    worst = max(pen, key=pen.get)
    if pen[worst] <= 0:
        note = "colour, contrast, light, balance and detail all in range"
    else:
        x, (lo, hi, *_rest) = getattr(f, worst), BANDS[worst]
        note = f"{BANDS[worst][4]} {'too low' if x < lo else 'too high'} ({worst} {x:.2f})"
    return value, note


class LocalPreference:
    """The ``local`` preference backend."""

    name = "local"

    def __init__(self, size: int = 256):
        self.size = size

    def score(self, image: np.ndarray, prompt: str = "") -> tuple[float, str]:
        return preference_value(preference_features(image))

    def check(self) -> str | None:
        return None
