"""Matplotlib (Agg) figures for the report and compare pages, returned as PNG bytes."""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any, Sequence

from . import metrics
from .run import TERMS, Rollout

TERM_COLOURS = {"gate": "#7f8c8d", "length": "#bdc3c7", "judge": "#c0392b", "preference": "#2980b9",
                "total": "#2c3e50"}


def _legend(ax, **kw) -> None:
    """A legend only when something is labelled: an empty run would print matplotlib's warning into the CLI."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> bytes:
    from matplotlib.ticker import MaxNLocator

    for ax in fig.axes:  # training steps are whole numbers
        if ax.get_xlabel().startswith("training step"):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    _plt().close(fig)
    return buf.getvalue()


def _by_step(rollouts: Sequence[Rollout], value) -> tuple[list[int], list[float], list[float]]:
    import numpy as np

    by: dict[int, list[float]] = defaultdict(list)
    for r in rollouts:
        v = value(r)
        if v is not None:
            by[r.step].append(v)
    steps = sorted(by)
    return steps, [float(np.mean(by[s])) for s in steps], [float(np.std(by[s])) for s in steps]


#: Past this many steps a per-step curve is drawn faint under its rolling mean: at 500-2,000 steps markers on every
#: step made solid bands (the diversity curve's "across prompts" hid "within a group", the one the verdict reads).
SMOOTH_ABOVE = 100
#: The most points a scatter draws (spread evenly over the run): 128,000 at 2,000 steps painted over each other.
MAX_POINTS = 5000


def _line(ax, steps: Sequence[int], values: Sequence[float], style: str = "-o", **kw) -> None:
    """A per-step curve: markers on every step for a short run, a faint line under its rolling mean for a long one."""
    import numpy as np

    if len(steps) <= SMOOTH_ABOVE:
        ax.plot(steps, values, style, ms=3, **kw)
        return
    w = max(3, len(steps) // 50)
    label = kw.pop("label", None)
    ax.plot(steps, values, "-", lw=0.5, alpha=0.25, color=kw.get("color"))
    smooth = np.convolve(np.asarray(values, dtype=float), np.ones(w) / w, mode="valid")
    ax.plot(steps[w - 1:], smooth, style.replace("o", ""), lw=1.6,
            label=f"{label} (mean of {w} steps)" if label else None, **kw)


def _shade_thirds(ax, rollouts: Sequence[Rollout]) -> None:
    parts = metrics.thirds(rollouts)
    if parts is None:
        return
    for i, p in enumerate(parts):
        if p and i % 2 == 1:
            steps = [r.step for r in p]
            ax.axvspan(min(steps) - 0.5, max(steps) + 0.5, color="#f3efe6", zorder=0)


def reward_curve(rollouts: Sequence[Rollout], title: str = "reward per step") -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    _shade_thirds(ax, rollouts)
    s, m, sd = _by_step(rollouts, lambda r: r.reward)
    _line(ax, s, m, color=TERM_COLOURS["total"], label="mean reward")
    ax.fill_between(s, [a - b for a, b in zip(m, sd)], [a + b for a, b in zip(m, sd)], color="#95a5a6", alpha=0.3,
                    label="+- 1 std in the step")
    s2, bad, _ = _by_step([r for r in rollouts if r.reward is not None],
                          lambda r: float(r.reward < metrics.BAD_REWARD))
    _line(ax, s2, bad, "--", color="#e67e22", label="share of bad paintings (< 0.3)")
    ax.set_xlabel("training step (shaded: middle third)")
    _reward_ylim(ax, [a + b for a, b in zip(m, sd)] + [a - b for a, b in zip(m, sd)])
    ax.set_title(title)
    _legend(ax, fontsize=7, loc="best")
    return _png(fig)


def term_curves(rollouts: Sequence[Rollout]) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    _shade_thirds(ax, rollouts)
    for t in TERMS:
        s, m, _ = _by_step(rollouts, lambda r, t=t: r.breakdown.get(t))
        if s:
            _line(ax, s, m, color=TERM_COLOURS[t], label=t)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("training step")
    ax.set_title("reward terms per step (unweighted means)")
    _legend(ax, fontsize=7, ncol=4, loc="lower right")
    return _png(fig)


def contribution_stack(rollouts: Sequence[Rollout], weights: dict[str, float]) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    series = {}
    steps: list[int] = []
    for t in TERMS:
        steps, m, _ = _by_step(rollouts, lambda r, t=t: (metrics.contributions(r, weights) or {}).get(t))
        series[t] = m
    if steps:
        ax.stackplot(steps, *[series[t] for t in TERMS], labels=[f"{t} (w={weights.get(t, 0):.2f})" for t in TERMS],
                     colors=[TERM_COLOURS[t] for t in TERMS], alpha=0.85)
    ax.set_xlabel("training step")
    ax.set_title("weighted contribution of each term to the reward")
    _legend(ax, fontsize=7, loc="upper left")
    return _png(fig)


def diversity_curve(div: dict[str, Any]) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    rows = div.get("per_step") or []
    for key, colour, label in (("within_group", "#8e44ad", "within a GRPO group"),
                               ("across_prompts", "#16a085", "across prompts")):
        pts = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
        if pts:
            _line(ax, [p[0] for p in pts], [p[1] for p in pts], color=colour, label=label)
    ax.axhline(metrics.COLLAPSE_WITHIN, color="#c0392b", lw=0.8, ls=":", label="collapse threshold (group)")
    ax.set_ylim(bottom=0)  # the threshold was in the legend but under the axis's autoscaled bottom
    ax.set_xlabel("training step")
    ax.set_ylabel("mean image distance")
    ax.set_title("diversity of the paintings")
    _legend(ax, fontsize=7)
    return _png(fig)


def scorer_scatter(rollouts: Sequence[Rollout]) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(4.2, 3.6))
    pts = [(r.breakdown["judge"], r.breakdown["preference"], r.step) for r in rollouts
           if r.breakdown.get("judge") is not None and r.breakdown.get("preference") is not None]
    pts = [pts[i] for i in metrics.spread(len(pts), MAX_POINTS)]
    if pts:
        sc = ax.scatter([p[0] for p in pts], [p[1] for p in pts], c=[p[2] for p in pts], cmap="viridis", s=12)
        fig.colorbar(sc, ax=ax, label="step")
    ax.set_xlabel("judge")
    ax.set_ylabel("preference")
    ax.set_title("judge vs preference, same paintings")
    return _png(fig)


def training_stats(metrics_rows: Sequence[dict[str, Any]]) -> bytes | None:
    """Loss, step time and env time share from metrics.jsonl; None when the run logged none."""
    keys = [k for k in ("loss", "grad_norm", "step_time", "env_time_share", "frac_reward_zero_std") if
            any(isinstance(m.get(k), (int, float)) for m in metrics_rows)]
    if not keys:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, len(keys), figsize=(2.2 * len(keys) + 0.6, 2.4), squeeze=False)
    for ax, k in zip(axes[0], keys):
        pts = [(m.get("step", i), m[k]) for i, m in enumerate(metrics_rows) if isinstance(m.get(k), (int, float))]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", ms=2, color="#34495e")
        ax.set_title(k, fontsize=8)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return _png(fig)


def policy_bars(groups: dict[str, dict[str, Any] | None], title: str) -> bytes:
    """Reward, judge and preference of several policies (or runs) side by side; the legend right of the axes, where
    it hides no bar ("best" put it on the trained reward bar when that reached 0.7-0.8)."""
    import numpy as np

    plt = _plt()
    keys = ("reward", "judge", "preference")
    names = [n for n, s in groups.items() if s]
    fig, ax = plt.subplots(figsize=(5.6, 3.0))
    width = 0.8 / max(1, len(names))
    x = np.arange(len(keys))
    for i, n in enumerate(names):
        vals = [groups[n].get(k) or 0.0 for k in keys]
        ax.bar(x + i * width - 0.4 + width / 2, vals, width, label=n)
    ax.set_xticks(x, keys)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    _legend(ax, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return _png(fig)


def _reward_ylim(ax, values: Sequence[float]) -> None:
    """0-1, the presets' range, widened to what is plotted: a run with its own weights (four terms at 1 each)
    rewards up to 4, and its curve was drawn off the chart."""
    lo, hi = min([0.0, *values]), max([1.0, *values])
    pad = 0.02 * (hi - lo)
    ax.set_ylim(lo - pad, hi + pad)


def overlay_rewards(runs: dict[str, Sequence[Rollout]]) -> bytes:
    """Mean reward per step of several runs on one axis (the compare page); the legend right of the axes (over
    them it hid most curves of ten runs), and a line style per ten runs (the colour cycle repeats after ten)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    seen: list[float] = []
    for i, (name, rs) in enumerate(runs.items()):
        s, m, _ = _by_step(rs, lambda r: r.reward)
        ax.plot(s, m, ("-o", "--s", ":^", "-.v")[i // 10 % 4], ms=3, label=name)
        seen += m
    _reward_ylim(ax, seen)
    ax.set_xlabel("training step")
    ax.set_title("reward per step")
    _legend(ax, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return _png(fig)
