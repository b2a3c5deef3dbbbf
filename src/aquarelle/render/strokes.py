"""Brush strokes, after p5.brush 2.2.2's ``stroke/stroke.js``.

A stroke walks its path in ``spacing`` px steps and drops a tip at every step:
soft discs for the pencil-like default brushes (skipped with probability set by
grain, jittered across the path by scatter), clouds of tiny dots for spray, big
faint discs for the marker, a sampled image for custom tips. Pressure follows
p5.brush's profiles (a bell along the stroke, or a custom curve). Stamps add
into the brush mask as log(1 - alpha); the compositor blends the mask when the
colour changes, darkening where it saturates. Random draws are made with numpy,
stamps rasterised by the compiled kernels in ``raster``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ._jit import njit
from .raster import stamp_discs, stamp_tips

_KEYS = ("weight", "scatter", "sharpness", "grain", "opacity", "spacing", "pressure", "type", "tip", "rotate",
         "markerTip", "noise")
_STANDARD = {
    "pen": [0.3, 0.15, 0.9, 0.7, 150, 0.1, {"curve": [0.15, 0.2], "min_max": [1.2, 1]}],
    "rotring": [0.15, 0.05, 0.7, 0.9, 210, 0.1, {"curve": [0.35, 0.2], "min_max": [1.3, 1]}],
    "2B": [0.3, 0.75, 0.45, 0.8, 180, 0.1, {"curve": [0.1, 0.3], "min_max": [1.1, 0.9]}],
    "HB": [0.3, 0.6, 0.3, 0.7, 170, 0.1, {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]}],
    "2H": [0.2, 0.6, 0.3, 0.75, 120, 0.1, {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]}],
    "cpencil": [0.35, 0.55, 0.8, 0.7, 75, 0.1, {"curve": [0.15, 0.2], "min_max": [0.95, 1.1]}],
    "pastel": [0.7, 5, 0.91, 1, 30, 0.085 / 3, {"mode": "gaussian", "curve": [0.4, 0.05], "min_max": [1.09, 0.93]},
               "default", None, "natural", True, 1],
    "crayon": [0.33, 1.9, 0.75, 2, 159, 0.07, [1.1, 0.9], "default", None, "natural", True, 1],
    "charcoal": [0.35, 1.5, 0.68, 2, 120, 0.03, {"curve": [0.15, 0.4], "min_max": [1.1, 0.95]}],
    "spray": [0.2, 6, 15, 40, 90, 0.5, {"curve": [0.2, 0.35], "min_max": [0.7, 1]}, "spray"],
    "marker": [2, 0.2, None, None, 1, 0.03, {"curve": [0.35, 0.25], "min_max": [1.2, 0.85]}, "marker"],
}
_DEFAULT_PRESSURE = {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]}
_DEFAULTS = {"scatter": 0.0, "sharpness": 0.5, "grain": 1.0, "opacity": 150.0, "spacing": 1.0, "noise": 0.3,
             "markerTip": True, "rotate": None, "type": "default"}


@dataclass
class Pressure:
    """p5.brush's normalised pressure: a bell ("gaussian") or a curve on [0, 1] ("custom")."""

    kind: str
    min: float
    max: float
    curve: tuple | None = None  # gaussian: (c0, c1)
    samples: np.ndarray | None = None  # custom: curve sampled on [0, 1]


def _pressure(p) -> Pressure:
    if isinstance(p, (list, tuple)):
        s, m, e = (p[0], (p[0] + p[1]) / 2, p[1]) if len(p) == 2 else tuple(p)
        lo, hi = min(s, m, e), max(s, m, e)
        rng = (hi - lo) or 1
        ns, nm, ne = (s - lo) / rng, (m - lo) / rng, (e - lo) / rng
        t = np.linspace(0, 1, 65)
        curve = np.where(t < 0.5, ns + (nm - ns) * t * 2, nm + (ne - nm) * (t - 0.5) * 2)
        return Pressure("custom", lo, hi, samples=curve)
    if isinstance(p, dict):
        if "samples" in p:
            mm = p.get("min_max", [0, 1])
            return Pressure("custom", mm[0], mm[1], samples=np.asarray(p["samples"], np.float64))
        if "curve" in p and "min_max" in p:
            return Pressure("gaussian", p["min_max"][0], p["min_max"][1], curve=tuple(p["curve"]))
    return _pressure(_DEFAULT_PRESSURE)


@dataclass(frozen=True)
class Brush:
    name: str
    type: str
    weight: float
    scatter: float
    sharpness: float
    grain: float
    opacity: float
    spacing: float
    pressure: Pressure
    marker_tip: bool
    noise: float
    rotate: str | None
    tip: np.ndarray | None


def brush_params(name: str, custom: dict, scale: float) -> Brush:
    """The brush a name means now: built-in table or a custom ``add``, with ``scaleBrushes`` applied."""
    if name in custom:
        raw = dict(_DEFAULTS)
        raw.update({k: v for k, v in custom[name].items() if v is not None})
        raw.setdefault("pressure", _DEFAULT_PRESSURE)
        return _make_brush(name, raw, scale)
    return _standard_brush(name, float(scale))


@functools.lru_cache(maxsize=64)
def _standard_brush(name: str, scale: float) -> Brush:
    """A built-in brush, built once per name and scale: every stroke op asks again, and nothing changes a Brush."""
    vals = _STANDARD.get(name, _STANDARD["HB"])
    raw = dict(_DEFAULTS)
    raw.update({k: v for k, v in zip(_KEYS, vals) if v is not None})
    if name == "marker":
        raw["sharpness"], raw["grain"] = None, None
    return _make_brush(name, raw, scale)


def _make_brush(name: str, raw: dict, scale: float) -> Brush:
    tip = None
    if raw.get("type") == "custom" and raw.get("tip") is not None:
        tip = np.ascontiguousarray(np.asarray(raw["tip"], dtype=np.float64))
    return Brush(
        name=name, type=raw.get("type") or "default", weight=float(raw["weight"]) * scale,
        scatter=float(raw.get("scatter") or 0.0) * scale, sharpness=float(raw.get("sharpness") or 0.0),
        grain=float(raw.get("grain") or 0.0), opacity=float(raw.get("opacity", 150.0)),
        spacing=max(float(raw.get("spacing") or 1.0) * scale, 1e-3), pressure=_pressure(raw.get("pressure")),
        marker_tip=bool(raw.get("markerTip", True)), noise=min(max(float(raw.get("noise", 0.3)), 0.0), 1.0),
        rotate=raw.get("rotate"), tip=tip)


def _sim_pressure(b: Brush, d: np.ndarray, length: float, rng: np.random.Generator) -> np.ndarray:
    pr = b.pressure
    length = max(length, 1e-9)
    if pr.kind == "custom":
        cp, ct = rng.uniform(-0.08, 0.08), rng.uniform(-0.06, 0.06)
        cs, ck = rng.uniform(0.92, 1.08), rng.uniform(-0.06, 0.06)
        t = d / length
        tt = np.clip(0.5 + (t - 0.5 + ct) * cs, 0, 1)
        s = pr.samples
        v = np.interp(tt, np.linspace(0, 1, len(s)), s) + cp + ck * (t - 0.5)
        out = pr.min + v * (pr.max - pr.min)
        return np.clip(out, min(pr.min, pr.max), max(pr.min, pr.max))
    ca, cb, cp = rng.uniform(-1, 1), rng.uniform(1, 1.5), rng.uniform(3, 3.5)
    a = 0.5 + pr.curve[0] * ca
    bb = 1 - pr.curve[1] * cb
    peak = a * length
    v = 1 / (1 + _bell_distance(d, peak, bb * 1.2, bb * 0.8, length / 2) ** (2 * cp))
    return pr.min + v * (pr.max - pr.min)


@njit
def _bell_distance(d, peak, before, after, half):
    """``|d - peak| / hw`` with the bell's half-width ``hw`` (``before`` or ``after`` the peak, times ``half``;
    1e-9 where that is 0): numpy's ``np.where`` and arithmetic for it in one pass, same operations, same values.
    The power stays numpy's, whose vectorised ``pow`` can differ from libm's in the last bit."""
    out = np.empty(d.shape[0])
    for i in range(d.shape[0]):
        hw = (before if d[i] < peak else after) * half
        if hw == 0:
            hw = 1e-9
        out[i] = abs((d[i] - peak) / hw)
    return out


@dataclass
class Path:
    """Where the tip goes: positions before each step, distance travelled, heading (deg) and plot pressure."""

    xs: np.ndarray
    ys: np.ndarray
    plotted: np.ndarray
    heading: np.ndarray
    plot_pressure: np.ndarray
    length: float
    end: tuple[float, float]


def paint_stroke(mask: np.ndarray, dirty: np.ndarray, path: Path, b: Brush, weight: float,
                 rng: np.random.Generator, clip: np.ndarray) -> int:
    """Stamp one stroke into the brush mask; returns the number of stamps."""
    n = path.xs.shape[0]
    p_all = _sim_pressure(b, path.plotted, path.length, rng) * path.plot_pressure if n else np.ones(0)
    alpha0 = b.opacity if b.type in ("default", "spray") else b.opacity / min(weight, 1.3)
    if b.noise > 0:
        alpha0 = max(0.0, alpha0 * (1 + rng.normal(0, 0.1 * b.noise)))
    xs_l, ys_l, d_l, a_l = [], [], [], []
    tips = []  # (x, y, size, alpha, angle) for custom tips

    def marker_tip(x, y, p, h):
        if not b.marker_tip:
            return
        if b.type == "marker":
            for s in range(1, 10):
                pp = p * s / 10
                vib = weight * b.scatter
                xs_l.append([x + vib * rng.uniform(-1, 1)])
                ys_l.append([y + vib * rng.uniform(-1, 1)])
                d_l.append([weight * b.weight * pp])
                a_l.append([alpha0 * 8 * max(0.8, pp) * rng.uniform(0.9, 1.1)])
        elif b.type == "custom" and b.tip is not None:
            for s in range(1, 5):
                pp = p * s / 10
                vib = weight * b.scatter
                tips.append((x + vib * rng.uniform(-1, 1), y + vib * rng.uniform(-1, 1), b.weight * weight * pp,
                             alpha0 * 2 * max(0.8, pp) * rng.uniform(0.9, 1.1), _tip_angle(b, h, rng)))

    if n:
        marker_tip(path.xs[0], path.ys[0], p_all[0], path.heading[0])
        p = np.maximum(p_all, 1e-3)
        x, y = path.xs, path.ys
        if b.type == "default":
            keep = rng.random(n) < b.grain * p
            g = rng.standard_normal(n)
            u_perp, u_along = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
            u_size, u_alpha = rng.uniform(0.85, 1.15, n), rng.uniform(0.75, 1.1, n)
            hd = path.heading
            # sin/cos only where a stamp is kept, and once for a straight line's constant heading
            hk = hd[:1] if hd[0] == hd[-1] and (hd == hd[0]).all() else hd[keep]
            hk = np.radians(hk)
            sx, sy, sd, sa = _default_stamps(keep, x, y, p, g, u_perp, u_along, u_size, u_alpha, np.sin(hk),
                                             np.cos(hk), weight * b.scatter, b.sharpness, b.weight,
                                             float(weight), float(alpha0))
            xs_l.append(sx)
            ys_l.append(sy)
            d_l.append(sd)
            a_l.append(sa)
        elif b.type == "spray":
            g = rng.standard_normal(n)
            vib = weight * b.scatter * p + weight * g * b.scatter / 3
            sw = b.weight * rng.uniform(0.9, 1.1, n)
            it = np.minimum(np.ceil(b.grain / p), 400).astype(np.int64)
            rep = np.repeat(np.arange(n), it)
            m = rep.shape[0]
            r = rng.uniform(0.9, 1.1, m)
            rv = r * vib[rep]
            rx = rv * rng.uniform(-1, 1, m)
            yr = rng.uniform(-1, 1, m)
            xs_l.append(x[rep] + rx)
            ys_l.append(y[rep] + yr * np.sqrt(np.maximum(rv * rv - rx * rx, 0)))
            d_l.append(sw[rep])
            a_l.append(np.full(m, alpha0))
        elif b.type == "marker":
            vib = weight * b.scatter
            xs_l.append(x + vib * rng.uniform(-1, 1, n))
            ys_l.append(y + vib * rng.uniform(-1, 1, n))
            d_l.append(weight * b.weight * p)
            a_l.append(alpha0 * np.maximum(0.8, p) * rng.uniform(0.9, 1.1, n))
        elif b.type == "custom" and b.tip is not None:
            vib = weight * b.scatter
            if b.rotate == "random":
                ang = np.radians(rng.integers(0, 360, n).astype(np.float64))
            elif b.rotate == "natural":
                ang = -np.radians(path.heading)
            else:
                ang = np.zeros(n)
            tips.extend(zip(x + vib * rng.uniform(-1, 1, n), y + vib * rng.uniform(-1, 1, n), b.weight * weight * p,
                            alpha0 * np.maximum(0.8, p) * rng.uniform(0.9, 1.1, n), ang))
        marker_tip(path.end[0], path.end[1], p_all[-1], path.heading[-1])
    count = 0
    if xs_l:
        xs, ys, ds, als = _join(xs_l), _join(ys_l), _join(d_l), _join(a_l) / 255.0
        stamp_discs(mask, xs, ys, ds, als, clip, dirty)
        count += xs.shape[0]
    if tips:
        t = np.asarray(tips, np.float64)
        stamp_tips(mask, t[:, 0].copy(), t[:, 1].copy(), t[:, 2].copy(), t[:, 3] / 255.0, t[:, 4].copy(), b.tip,
                   clip, dirty)
        count += t.shape[0]
    return count


def _join(parts: list) -> np.ndarray:
    """The parts as one float64 array; a stroke with one part (no marker tips) is not copied."""
    if len(parts) == 1 and isinstance(parts[0], np.ndarray):
        return parts[0]
    return np.concatenate([np.asarray(v, np.float64) for v in parts])


@njit
def _default_stamps(keep, x, y, p, g, u_perp, u_along, u_size, u_alpha, sin_h, cos_h, vib0, sharp, bweight,
                    weight, alpha0):
    """The kept stamps of a default (pencil-like) brush: positions, sizes and alphas (0-255).

    One pass instead of a dozen numpy temporaries. Each value is the numpy expression it replaces, with
    the same operations in the same order (no fused multiply-adds without fastmath), so the results are
    bit-identical. ``sin_h``/``cos_h`` hold the kept steps' heading, or one value for a constant heading.
    """
    m = 0
    for i in range(keep.shape[0]):
        if keep[i]:
            m += 1
    xs = np.empty(m)
    ys = np.empty(m)
    ds = np.empty(m)
    als = np.empty(m)
    one = sin_h.shape[0] == 1
    j = 0
    for i in range(keep.shape[0]):
        if not keep[i]:
            continue
        k = 0 if one else j
        pi = p[i]
        vib = vib0 * (sharp + (1.0 - sharp) * g[i] / pi)
        perp = vib * u_perp[i]
        along = 0.3 * vib * u_along[i]
        xs[j] = x[i] + perp * sin_h[k] + along * cos_h[k]
        ys[j] = y[i] + perp * cos_h[k] - along * sin_h[k]
        ds[j] = pi * pi * bweight * u_size[i] * weight
        als[j] = (0.9 if pi < 0.9 else pi) * alpha0 * u_alpha[i]  # np.maximum(0.9, p), NaN included
        j += 1
    return xs, ys, ds, als


def _tip_angle(b: Brush, heading: float, rng: np.random.Generator) -> float:
    if b.rotate == "random":
        return math.radians(int(rng.integers(0, 360)))
    if b.rotate == "natural":
        return math.radians(-heading)
    return 0.0
