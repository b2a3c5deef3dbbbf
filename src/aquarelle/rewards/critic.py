"""The local judge: a deterministic watercolour critic answering the pairwise question.

It reads what a watercolour teacher looks at, from the image alone:
- paper: how much paper is left showing (neither buried nor blank),
- presence: enough clearly visible paint (a washed-out page does not read),
- mud: painted pixels that are dull grey-brown and dark,
- harsh: hard, saturated, opaque colour (neon, black) instead of transparent washes,
- edges: crisp high-contrast edges (scribbles, ruled lines) versus soft bleeding ones,
- layering: a range of translucent tones inside the painted area,
- harmony: how many clashing hue families share the picture,
- composition: paint that sits in the frame with some weight, not a speck or a wall.
Each becomes a penalty or a bonus; the painting with the higher total wins and the
reason names the feature that separated them most; equal totals are a tie. The preference scorer
(preference.py) deliberately uses other features, so the two can disagree.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .imageio import as_rgb, resize
from .judge import Verdict

FEATURE_SIZE = 128  # features are read at 128 x 128: enough for washes, cheap for a 30 ms budget


def _hsv(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = img.astype(np.float32) / 255.0
    mx, mn = f.max(axis=2), f.min(axis=2)
    d = mx - mn
    s = np.where(mx > 1e-6, d / np.maximum(mx, 1e-6), 0.0)
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    dd = np.maximum(d, 1e-6)
    h = np.where(mx == r, ((g - b) / dd) % 6, np.where(mx == g, (b - r) / dd + 2, (r - g) / dd + 4)) / 6.0
    return np.where(d > 1e-6, h, 0.0), s, mx


def paper_colour(img: np.ndarray) -> np.ndarray:
    """The paper: the most common light colour (quantised); the canvas background for these sketches."""
    q = (img[::2, ::2].reshape(-1, 3) // 8).astype(np.int32)
    key = q[:, 0] * 1024 + q[:, 1] * 32 + q[:, 2]
    vals, counts = np.unique(key, return_counts=True)
    k = vals[np.argmax(counts)]
    return np.array([k // 1024, (k // 32) % 32, k % 32], np.float32) * 8 + 4


@dataclass(frozen=True)
class CriticFeatures:
    paper: float       # fraction of paper showing (distance to paper < tolerance)
    mud: float         # share of painted pixels that are dull and darkish
    harsh: float       # share of painted pixels that are saturated-bright neon or near black
    edges: float       # density of crisp edges per painted pixel
    layering: float    # spread of tone inside the painted area (translucent layers)
    hues: float        # number of distinct hue families with real weight
    mass: float        # painted fraction of the canvas
    strong: float      # fraction of the canvas carrying clearly visible paint (washed-out pictures lack it)
    centre: float      # how far the paint's centre of mass sits from the canvas centre (0..~0.7)

    def quality(self) -> float:
        return critic_quality(self)


def critic_features(image: np.ndarray, size: int = FEATURE_SIZE) -> CriticFeatures:
    img = resize(as_rgb(image), size).astype(np.float32)
    paper = paper_colour(img)
    dist = np.abs(img - paper).max(axis=2)
    painted = dist > 12
    n_p = max(int(painted.sum()), 1)
    mass = n_p / painted.size
    h, s, v = _hsv(img)
    # darkish: value below 0.76. Re-fitted on the design split when native renders became p5.brush's own
    # (2026-11-30): its fills are lighter than the old native look, and 0.62 let muddy paintings pass as clean
    mud = float(((s < 0.28) & (v < 0.76) & painted).sum() / n_p)
    harsh = float(((((s > 0.75) & (v > 0.55)) | (v < 0.18)) & painted).sum() / n_p)
    lum = img @ np.array([0.299, 0.587, 0.114], np.float32)
    gx = np.abs(np.diff(lum, axis=1))[:-1, :]
    gy = np.abs(np.diff(lum, axis=0))[:, :-1]
    g = np.maximum(gx, gy)
    edges = float((g > 40).sum() / n_p)
    layering = float(np.std(lum[painted]) / 64.0) if n_p > 20 else 0.0
    hue_bins = np.bincount((h[painted & (s > 0.15)] * 12).astype(int) % 12, minlength=12)
    w = hue_bins / max(hue_bins.sum(), 1)
    hues = float((w > 0.08).sum())
    ys, xs = np.nonzero(painted)
    centre = float(np.hypot(xs.mean() / size - 0.5, ys.mean() / size - 0.5)) if len(xs) else 0.7
    strong = float((dist > 40).sum() / dist.size)
    return CriticFeatures(paper=float(1 - mass), mud=mud, harsh=harsh, edges=edges, layering=layering,
                          hues=hues, mass=float(mass), strong=strong, centre=centre)


#: What each critic term means, for the verdict's reason (weights in WEIGHTS).
TERMS = {
    "paper": "paper left to breathe",
    "presence": "paint that actually reads",
    "mud": "clean colour (no mud)",
    "harsh": "transparent colour (nothing harsh)",
    "edges": "soft edges",
    "layering": "translucent layering",
    "harmony": "a harmonious palette",
    "composition": "a composition that holds the page",
}


def critic_terms(f: CriticFeatures) -> dict[str, float]:
    """Each term in roughly [-1, 1] (higher is better)."""
    # paper may show anywhere between a third and nearly all of the page; buried or blank is bad
    paper = -max(0.0, 0.35 - f.paper) / 0.35 - max(0.0, f.paper - 0.97) / 0.03
    return {
        "paper": paper,
        "presence": -max(0.0, 0.03 - f.strong) / 0.03,
        "mud": -min(f.mud / 0.35, 1.5),
        "harsh": -min(f.harsh / 0.15, 1.5),
        "edges": -min(f.edges / 0.25, 1.5),
        "layering": min(f.layering, 1.0) - 0.3,
        "harmony": -max(f.hues - 3, 0) / 3.0,
        "composition": -max(f.centre - 0.25, 0) * 2,
    }


WEIGHTS = {"paper": 1.0, "presence": 1.5, "mud": 1.2, "harsh": 1.5, "edges": 1.0, "layering": 0.5, "harmony": 0.6,
           "composition": 1.2}


def critic_quality(f: CriticFeatures) -> float:
    t = critic_terms(f)
    return float(sum(WEIGHTS[k] * v for k, v in t.items()))


class LocalJudge:
    """The ``local`` judge backend: compares critic qualities.

    Features are computed once per image array and remembered while that array
    lives (the pool's reference images stay cached), so scoring one painting
    against 4 references computes features for one new image.
    """

    name = "local"

    def __init__(self, size: int = 256):
        self.size = size
        self._cache: dict[int, tuple[weakref.ref, CriticFeatures]] = {}

    def features(self, image: np.ndarray) -> CriticFeatures:
        hit = self._cache.get(id(image))
        if hit is not None and hit[0]() is image:
            return hit[1]
        f = critic_features(image)
        try:
            if len(self._cache) > 1024:
                self._cache = {k: v for k, v in self._cache.items() if v[0]() is not None}
            self._cache[id(image)] = (weakref.ref(image), f)
        except TypeError:  # not weak-referenceable (a view of a foreign buffer): just do not cache
            pass
        return f

    def compare(self, a: np.ndarray, b: np.ndarray) -> Verdict:
        ta, tb = critic_terms(self.features(a)), critic_terms(self.features(b))
        qa = sum(WEIGHTS[k] * v for k, v in ta.items())
        qb = sum(WEIGHTS[k] * v for k, v in tb.items())
        if qa == qb:  # equal in either order: a tie, not a win for whichever came first
            return Verdict(winner="tie", reason=f"A and B are equal ({qa:+.2f})")
        winner = "A" if qa > qb else "B"
        diffs = {k: WEIGHTS[k] * (ta[k] - tb[k]) for k in ta}
        key = max(diffs, key=lambda k: diffs[k] if winner == "A" else -diffs[k])
        return Verdict(winner=winner, reason=f"{winner} has {TERMS[key]} ({qa:+.2f} vs {qb:+.2f})")

    def compare_many(self, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[Verdict]:
        return [self.compare(a, b) for a, b in pairs]

    def check(self) -> str | None:
        return None
