"""Metrics over rollouts: pure functions from lists of rollouts to JSON-ready dicts.

Each answers one of the questions the published work answered by hand: does the
reward rise steadily (and which term drives it), do the two scorers agree or is
one being gamed, do the paintings stay diverse, are the tools used as given, and
does it hold on prompts training never saw. A statistic a short run cannot
support (thirds of a 2-step run, a t-statistic from two points) is None, with a
``reason``; it is never an error and never a made-up 0.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from aquarelle.brush.action_space import get_space
from aquarelle.brush.commands import SPECS, CommandError
from aquarelle.train.completion import NEVER_RAN

from . import images
from .run import TERMS, Rollout

#: A rollout below this total reward counts as a bad painting (the published runs improved mostly by having fewer).
BAD_REWARD = 0.3
#: A change between the first and last third smaller than this is "flat" for the scorer-gaming flags.
RISE = 0.03
#: Mean thumbnail distance inside GRPO groups below this: the group paints the same picture (no learning signal).
#: a rise of painted coverage (first to last third) that, with the preference rising on it and the judge not, reads
#: as a policy flooding the canvas for the preference scorer (``verdicts.gamed``)
FLOOD_RISE = 0.15
#: ... and how closely the preference must follow coverage for that (Pearson, over the run's rollouts)
FLOOD_CORR = 0.5
COLLAPSE_WITHIN = 0.02
#: Mean distance between paintings of different prompts below this: one picture whatever the prompt.
COLLAPSE_ACROSS = 0.03
#: Held-out reward may trail training prompts by this much and still "hold".
HOLD_MARGIN = 0.05
#: Fewest prompts an improvement's interval is given for: with fewer, its width rests on too few differences.
CI_MIN_PROMPTS = 5
CI_LEVEL = 0.95
#: A slope t-statistic above this counts as a real trend (above Student's one-sided 5% point when that is higher:
#: with 3-6 steps t = 2 is far from significant).
T_SIGNIFICANT = 2.0
#: Fewest effective independent steps (``trend_stat``'s ``n_eff``) a slope t-statistic is given for (1 degree of
#: freedom).
MIN_N_EFF = 3.0
#: The coverage floor of the published gate.
MIN_COVERAGE = 0.005

#: A rollout's painting as (thumbnail in [0,1], palette entropy), or None when it has none (``images.load``).
ImageLoader = Callable[[Rollout], "tuple[np.ndarray, float | None] | None"]


# ---------------------------------------------------------------- helpers


def _mean(xs: Iterable[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return float(np.mean(v)) if v else None


def _round(x: float | None, nd: int = 4) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return round(float(x), nd)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def is_infrastructure(error: str) -> bool:
    """Errors the policy did not cause (a scorer or renderer failed): kept apart from its tool errors."""
    return error.startswith(("infrastructure", "image not saved"))


def policy_errors(r: Rollout) -> list[str]:
    """The rollout's own errors: env errors plus, when its transcript is kept, failed and malformed tool calls."""
    errs = [e for e in r.errors if not is_infrastructure(e)]
    t = r.transcript
    if t is not None:  # its malformed calls are counted below: the record's own line for them is not counted twice
        errs = [e for e in errs if not e.startswith(NEVER_RAN)]
        errs += [f for f in t.failures if not any(f in e for e in errs)]
        errs += ["malformed tool call (no response)"] * t.malformed
    return errs


def unscored_reasons(rollouts: Sequence[Rollout], top: int = 3) -> dict[str, int]:
    """The commonest reasons rollouts were left unscored (reward None), so a null is never silent."""
    c: Counter[str] = Counter()
    for r in rollouts:
        if r.reward is None:
            c[unscored_reason(r)[:160]] += 1
    return dict(c.most_common(top))


def unscored_reason(r: Rollout) -> str:
    """Why a rollout was left unscored: its first infrastructure error, else its recorded error."""
    return next((e for e in r.errors if is_infrastructure(e)), None) or str(r.extra.get("error") or "no reason recorded")


def steps_of(rollouts: Sequence[Rollout]) -> list[int]:
    return sorted({r.step for r in rollouts})


def thirds(rollouts: Sequence[Rollout]) -> list[list[Rollout]] | None:
    """Rollouts split into the first, middle and last third of the training steps; None below 3 steps."""
    steps = steps_of(rollouts)
    if len(steps) < 3:
        return None
    parts = np.array_split(np.array(steps), 3)
    where = {int(s): i for i, part in enumerate(parts) for s in part}
    out: list[list[Rollout]] = [[], [], []]
    for r in rollouts:
        out[where[r.step]].append(r)
    return out


def _term(r: Rollout, term: str) -> float | None:
    return r.reward if term == "total" else r.breakdown.get(term)


#: ``trend_stat``'s reason when the points lie exactly on a line (``reward_trend`` then reads the slope's sign).
NO_SCATTER = "no scatter around the line: the t-statistic is undefined"


#: Fewest steps whose residuals' lag-1 autocorrelation ``trend_stat`` corrects for its small-sample bias. Below it r1
#: is used as measured (Santer et al.'s way, overconfident under autocorrelated noise): the first-order bias formula
#: divides by n - 5, so at 6-9 steps a near-zero r1 of independent rewards became phi near 1 and a 6-step run with a
#: strong rise read "cannot tell" in 39% of simulated runs (a 5-step one never); from 10 steps it was measured.
AR1_CORRECTED_FROM = 10


def ar1_estimate(r1: float, n: int) -> float:
    """The AR(1) coefficient phi of the residuals of a line fitted to n equally spaced points, from their lag-1
    autocorrelation r1, corrected for its small-sample bias and clamped to [0, 1].

    r1 of least-squares residuals runs low: E[r1] ~ phi - (1 + 4 phi) / n about a fitted mean (Kendall 1954,
    Biometrika 41:403; Marriott & Pope 1954, Biometrika 41:390), and about a fitted line, the same first-order
    bias with one more regressor, E[r1] ~ phi - (2 + 5 phi) / n (measured by simulation of AR(1) residuals of a
    line: n times the bias 2.0, 3.5, 4.5, 5.7 at phi 0, 0.3, 0.5, 0.7 over 400 steps). Solved for phi:
    phi = (n r1 + 2) / (n - 5), close to median-unbiased at 10-100 steps. At 20 steps and phi 0.7, r1 averages
    0.39 and this 0.65 (Santer et al. took r1 as it is)."""
    if n < AR1_CORRECTED_FROM:
        return min(1.0, max(0.0, r1))
    return min(1.0, max(0.0, (n * r1 + 2) / (n - 5)))


def trend_stat(x: Sequence[float], y: Sequence[float]) -> dict[str, Any]:
    """Least-squares slope of y on x with its t-statistic, corrected for lag-1 autocorrelated residuals (Santer et
    al. 2000, J. Geophys. Res. 105(D6): n_eff = n (1 - phi) / (1 + phi); the standard error scaled by
    sqrt((n - 2) / (n_eff - 2)), p from n_eff - 2 degrees of freedom), phi the residuals' lag-1 autocorrelation r1
    corrected for its small-sample bias (``ar1_estimate``) where Santer et al. take r1 as it is. None entries,
    with a reason, when the points cannot support it. ``lag1_autocorr`` is r1 (clamped at 0), ``lag1_corrected``
    the phi that ``n_eff`` counts (None under ``AR1_CORRECTED_FROM`` steps, where it is r1).

    Why: per-step means of a GRPO run wander slowly (the policy changes a little each step), and the plain OLS t
    assumes independent residuals: flat runs with AR(1) noise (phi 0.7) read "Yes, steadily" in 13-18% of
    simulated runs. Santer's correction with r1 as measured left 9-12% at 10-20 steps (r1 of 20 residuals averages
    0.39 at phi 0.7: n_eff came out ~9 where it is 3.5); with r1 bias-corrected, flat runs of 10-30 steps read
    steady in at most 5.4% (phi 0.3-0.7; phi 0.9: 5-8%, 11-17% before), iid ones in 2% as before. The price: iid
    power at 10-15 steps (a rise of 4 noise sds read steady in 71% of 10-step runs, 89% before; from 20 steps on
    within 1 point), and rises in AR noise at under 50 steps read steady less often, mostly the old overconfidence
    (phi 0.7, a rise of 4 sds over 20 steps: 80% -> 43%, where Santer's formula with the true phi gives 5%)."""
    x_a, y_a = np.asarray(x, float), np.asarray(y, float)
    n = len(x_a)
    if n < 3 or np.ptp(x_a) == 0:
        return {"slope": None, "t_stat": None, "p_value": None, "n": n, "n_eff": None, "lag1_autocorr": None,
                "lag1_corrected": None,
                "reason": f"{n} point(s): a slope's t-statistic needs scored rollouts from at least 3 steps"}
    from scipy import stats

    res = stats.linregress(x_a, y_a)
    slope = float(res.slope)
    e = y_a - (res.intercept + slope * x_a)
    # residuals of rounding size: points on a line (their r1 is rounding noise and would make n_eff anything)
    if not math.isfinite(res.stderr) or np.abs(e).max() <= 1e-9 * np.abs(y_a).max():
        return {"slope": _round(slope, 6), "t_stat": None, "p_value": None, "n": n, "n_eff": None,
                "lag1_autocorr": None, "lag1_corrected": None, "reason": NO_SCATTER}
    r1 = float(np.dot(e[:-1], e[1:]) / np.dot(e, e))
    phi = ar1_estimate(r1, n)
    corrected = n >= AR1_CORRECTED_FROM
    n_eff = n * (1 - phi) / (1 + phi)
    r1 = max(0.0, r1)
    out = {"slope": _round(slope, 6), "n": n, "n_eff": _round(n_eff, 1), "lag1_autocorr": _round(r1, 3),
           "lag1_corrected": _round(phi, 3) if corrected else None}
    if n_eff < MIN_N_EFF:
        how = (f"lag-1 autocorrelation {r1:.2f}, {phi:.2f} once corrected for the low bias of a short series"
               if corrected else f"lag-1 autocorrelation {r1:.2f}")
        return {**out, "t_stat": None, "p_value": None,
                "reason": f"the per-step rewards may wander rather than rise ({how}): {n} steps count as "
                          f"{n_eff:.1f} independent ones, too few for a slope's t-statistic"}
    t = slope / (float(res.stderr) * math.sqrt((n - 2) / (n_eff - 2)))
    p = 2 * float(stats.t.sf(abs(t), n_eff - 2))
    return {**out, "t_stat": _round(t, 3), "p_value": _round(p, 6), "reason": None}


def t_threshold(n: float) -> float:
    """The slope t-statistic a trend over n independent steps (``trend_stat``'s ``n_eff``) must pass."""
    from scipy import stats

    return max(T_SIGNIFICANT, float(stats.t.ppf(0.95, n - 2))) if n >= MIN_N_EFF else math.inf


def _per_step(rollouts: Sequence[Rollout], term: str) -> tuple[list[int], list[float]]:
    by: dict[int, list[float]] = defaultdict(list)
    for r in rollouts:
        v = _term(r, term)
        if v is not None:
            by[r.step].append(v)
    steps = sorted(by)
    return steps, [float(np.mean(by[s])) for s in steps]


def _corr(a: Sequence[float], b: Sequence[float], method: str = "pearson") -> float | None:
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    from scipy import stats

    r = stats.spearmanr(a, b)[0] if method == "spearman" else stats.pearsonr(a, b)[0]
    return _round(float(r))


SHORT_RUN = "fewer than 3 steps with rollouts: thirds need at least 3"  # (with generation reuse a step may have none)


# ---------------------------------------------------------------- reward trend


#: A run's end is judged from its last tenth of steps (at least ``END_MIN_STEPS``), once it has ``END_MIN_RUN``.
END_MIN_STEPS, END_MIN_RUN = 3, 20
#: how far the last window must lie under the best one: this many of its noise's standard errors, and ``END_DROP``
END_SE, END_DROP = 6.0, 0.05


def fell_back(steps: Sequence[int], means: Sequence[float]) -> dict[str, Any] | None:
    """The last tenth of the steps against the best window of as many steps, or None for a run under
    ``END_MIN_RUN`` steps. ``fell`` when the last lies more than ``END_DROP`` and ``END_SE`` standard errors of a
    window's mean (per-step noise from successive differences, which a trend barely moves) under the best.

    Why: thirds and a slope over every step average a late collapse away: a 500-step run that rose to 0.8 and sank
    back to its start over its last 10% read "Yes, steadily" (slope t = 46.6)."""
    n = len(means)
    if n < END_MIN_RUN:
        return None
    k = max(END_MIN_STEPS, math.ceil(n / 10))
    y = np.asarray(means, dtype=float)
    win = np.convolve(y, np.ones(k) / k, mode="valid")  # the mean of every k consecutive steps
    best = int(np.argmax(win))
    # the noise of a k-step mean, from the k-step blocks' successive differences (a trend barely moves them, a
    # reward that wanders step to step does: per-step differences missed that and flagged 50-80% of flat runs),
    # by their median (the fall itself is one large difference)
    blocks = y[n % k:].reshape(-1, k).mean(axis=1)
    d = np.diff(blocks)
    noise = float(np.median(np.abs(d - np.median(d))) * 1.4826 / math.sqrt(2)) if len(d) else 0.0
    margin = max(END_DROP, END_SE * noise)
    last, peak = float(win[-1]), float(win[best])
    return {"window": k, "last": _round(last), "best": _round(peak), "best_steps": [steps[best], steps[best + k - 1]],
            "margin": _round(margin), "fell": bool(peak - last > margin)}


def reward_trend(rollouts: Sequence[Rollout]) -> dict[str, Any]:
    """Total and per-term means by thirds of training, the per-step slope's t-statistic, and whether the run's end
    fell back from its best (``end``)."""
    parts = thirds(rollouts)
    out: dict[str, Any] = {"n_steps": len(steps_of(rollouts)), "n_rollouts": len(rollouts),
                           "n_scored": sum(r.reward is not None for r in rollouts)}
    steps, means = _per_step(rollouts, "total")
    out["per_step"] = [{"step": s, "reward": _round(m)} for s, m in zip(steps, means)]
    if parts is None:
        out["thirds"] = None
        out["change"] = None
    else:
        out["thirds"] = {t: [_round(_mean(_term(r, t) for r in p)) for p in parts] for t in ("total",) + TERMS}
        tot = out["thirds"]["total"]
        out["change"] = _round(_delta(tot[0], tot[2]))
    out["unscored_reasons"] = unscored_reasons(rollouts)
    out["end"] = fell_back(steps, means)
    out["trend"] = trend_stat(steps, means)
    out["term_trends"] = {}
    for t in TERMS:
        s, m = _per_step(rollouts, t)
        out["term_trends"][t] = trend_stat(s, m)
    t_stat = out["trend"]["t_stat"]
    n_eff = out["trend"]["n_eff"] if out["trend"]["n_eff"] is not None else len(steps)
    out["t_threshold"] = _round(t_threshold(n_eff), 3)
    if out["n_scored"] == 0:
        out["steady"] = None
        out["reason"] = "no rollout was scored"
    elif parts is None or t_stat is None or None in out["thirds"]["total"]:
        out["steady"] = None
        out["reason"] = (SHORT_RUN if parts is None else out["trend"]["reason"] or
                         "a third of training has no scored rollout")
    else:
        tot = out["thirds"]["total"]
        monotone = tot[0] <= tot[1] <= tot[2]
        out["steady"] = bool(monotone and t_stat > t_threshold(n_eff))
        out["reason"] = None
    if out["steady"] is None and parts is not None and out["n_scored"] and None not in out["thirds"]["total"] \
            and out["trend"]["reason"] == NO_SCATTER:  # points exactly on a line: steady iff it rises
        tot = out["thirds"]["total"]
        out["steady"] = bool(out["trend"]["slope"] > 0 and tot[0] < tot[2])
    return out


# ---------------------------------------------------------------- attribution


def _gated(r: Rollout) -> bool:
    g = r.breakdown.get("gate")
    return (g is not None and g <= 0) or r.reward == 0


def contributions(r: Rollout, weights: dict[str, float]) -> dict[str, float] | None:
    """Each weighted term's share of one rollout's reward (all 0 when the gate failed); None if unscored."""
    if r.reward is None:
        return None
    if _gated(r):
        return {t: 0.0 for t in TERMS}
    return {t: weights.get(t, 0.0) * (r.breakdown.get(t) or 0.0) for t in TERMS}


def term_attribution(rollouts: Sequence[Rollout], weights: dict[str, float]) -> dict[str, Any]:
    """How much each weighted term moved the total between the first and last third, and its correlation with it."""
    scored = [r for r in rollouts if r.reward is not None]
    contrib = [(r, contributions(r, weights)) for r in scored]
    out: dict[str, Any] = {"weights": dict(weights)}
    out["mean_contribution"] = {t: _round(_mean(c[t] for _, c in contrib)) for t in TERMS}
    corr = {}
    for t in TERMS:
        pairs = [(r.breakdown[t], r.reward) for r in scored if r.breakdown.get(t) is not None]
        corr[t] = _corr([a for a, _ in pairs], [b for _, b in pairs]) if pairs else None
    out["correlation_with_total"] = corr
    parts = thirds(rollouts)  # the same steps in each third as the reward trend's
    if parts is None:
        out.update(change=None, term_change=None, share_of_change=None, residual=None, dominant=None,
                   reason=SHORT_RUN)
        return out
    first, last = ([r for r in p if r.reward is not None] for p in (parts[0], parts[2]))
    cmap = {id(r): c for r, c in contrib}
    d_total = _delta(_mean(r.reward for r in first), _mean(r.reward for r in last))
    term_change = {t: _delta(_mean(cmap[id(r)][t] for r in first), _mean(cmap[id(r)][t] for r in last))
                   for t in TERMS}
    out["change"] = _round(d_total)
    out["term_change"] = {t: _round(v) for t, v in term_change.items()}
    if d_total is None or abs(d_total) < 1e-9:
        out["share_of_change"] = None
    else:
        out["share_of_change"] = {t: _round(v / d_total) if v is not None else None for t, v in term_change.items()}
    known = [v for v in term_change.values() if v is not None]
    out["residual"] = _round(d_total - sum(known)) if d_total is not None else None
    out["dominant"] = max(TERMS, key=lambda t: abs(term_change[t] or 0.0)) if known else None
    out["reason"] = None if d_total is not None else "the first or last third of training has no scored rollout"
    # the quality scorers' own change over the paintings that passed the gate: a gated painting counts 0 in every term,
    # so a policy that only stops crashing raises the weighted judge and preference with them flat (told "Yes,
    # steadily" in 81% of simulated runs)
    ran = [[r for r in p if (r.breakdown.get("gate") or 0) > 0] for p in (first, last)]
    out["passing_change"] = {t: _round(_delta(_mean(r.breakdown.get(t) for r in ran[0]),
                                              _mean(r.breakdown.get(t) for r in ran[1]))) for t in ("judge", "preference")}
    return out


# ---------------------------------------------------------------- scorer agreement


def _pair_agreement(groups: Iterable[list[Rollout]]) -> tuple[float | None, int]:
    """Share of within-group pairs that judge and preference order the same way (ties left out)."""
    agree = total = 0
    for g in groups:
        pts = [(r.breakdown["judge"], r.breakdown["preference"]) for r in g
               if r.breakdown.get("judge") is not None and r.breakdown.get("preference") is not None]
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                dj, dp = pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]
                if dj == 0 or dp == 0:
                    continue
                total += 1
                agree += (dj > 0) == (dp > 0)
    return (agree / total if total else None), total


#: A rise of one scorer against a fall of the other counts as gaming only when the divergence is this unlikely by
#: chance (on the size of the moves alone, 8-30% of 3-step pure-noise runs were flagged, by how noisy the scores are).
GAMING_P = 0.05


def divergence_p(first: Sequence[Rollout], last: Sequence[Rollout]) -> float | None:
    """Welch's two-sided p that judge minus preference, per GRPO group, has the same mean in the first and last third:
    a scorer gamed moves it; scorers that agree do not. None with fewer than two groups a side or no spread.

    Why per group: a group's paintings share a prompt, and the scorers disagree prompt by prompt; counted per
    painting, honest scorers with no trend were called gamed in 13-19% of simulated runs (3-12 steps x 2 groups x
    4-8), per group in 0.5-4%."""
    def by_group(rs: Sequence[Rollout]) -> list[float]:
        g: dict[tuple[int, int], list[float]] = defaultdict(list)
        for r in rs:
            g[r.group_key].append(r.breakdown["judge"] - r.breakdown["preference"])
        return [float(np.mean(v)) for v in g.values()]

    a, b = by_group(first), by_group(last)
    if len(a) < 2 or len(b) < 2:
        return None
    if np.ptp(a) == 0 and np.ptp(b) == 0:  # no spread: a difference of means is certain
        return 0.0 if np.mean(a) != np.mean(b) else 1.0
    from scipy import stats

    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def _f3(p: float | None) -> str:
    return "n/a" if p is None else f"{p:.3g}"


def scorer_agreement(rollouts: Sequence[Rollout], references: int = 4) -> dict[str, Any]:
    """Rank agreement of judge and preference, rise/fall flags for a gamed scorer, the judge's position-bias rate."""
    both = [r for r in rollouts if r.breakdown.get("judge") is not None and r.breakdown.get("preference") is not None]
    out: dict[str, Any] = {"n_paired": len(both)}
    out["spearman"] = _corr([r.breakdown["judge"] for r in both], [r.breakdown["preference"] for r in both],
                            "spearman")
    groups: dict[tuple[int, int], list[Rollout]] = defaultdict(list)
    for r in both:
        groups[r.group_key].append(r)
    agreement, n_pairs = _pair_agreement(groups.values())
    out["group_pair_agreement"] = _round(agreement)
    out["group_pairs"] = n_pairs

    parts = thirds(rollouts)
    flags: list[str] = []
    if parts is None:
        out["judge_change"] = out["preference_change"] = None
        out["gamed"] = None
        out["reason"] = SHORT_RUN
    else:
        paired = {id(r) for r in both}  # both scorers on the same paintings, or a failed scorer fakes a divergence
        first, last = ([r for r in p if id(r) in paired] for p in (parts[0], parts[2]))
        d = {t: _delta(_mean(r.breakdown.get(t) for r in first), _mean(r.breakdown.get(t) for r in last))
             for t in ("judge", "preference")}
        out["judge_change"], out["preference_change"] = _round(d["judge"]), _round(d["preference"])
        if d["judge"] is None or d["preference"] is None:
            out["gamed"] = None
            out["reason"] = "one scorer has no scores in the first or last third"
        else:
            out["divergence_p"] = p = _round(divergence_p(first, last))
            apart = [(up, down) for up, down in (("preference", "judge"), ("judge", "preference"))
                     if d[up] > RISE and d[down] < -RISE]
            # one scorer rising while the other stays level is what gaming looks like before the other falls: such a
            # run (judge +0.01, preference +0.21, p = 0.0001) read "No sign of it: the scorers move together"
            alone = [(up, down) for up, down in (("preference", "judge"), ("judge", "preference"))
                     if d[up] > RISE and abs(d[down]) <= RISE]
            if not apart and alone and p is not None and p < GAMING_P:
                up, down = alone[0]
                out["gamed"] = None
                out["alone"] = (f"the {up} rose ({d[up]:+.3f}) while the {down} stayed level ({d[down]:+.3f}), and "
                                f"the two moved apart beyond chance (p = {_f3(p)})")
                out["reason"] = out["alone"]
            elif apart and (p is None or p >= GAMING_P):  # apart, but no further than chance takes them
                out["gamed"] = None
                out["reason"] = (f"the scorers move apart (judge {d['judge']:+.3f}, preference "
                                 f"{d['preference']:+.3f}), but over {len(first)} and {len(last)} paintings that is "
                                 f"within chance (p = {_f3(p)}; gaming needs p < {GAMING_P})")
            else:
                flags += [f"{up} rises ({d[up]:+.3f}) while {down} falls ({d[down]:+.3f}), p = {p:.2g}: the policy "
                          f"may be gaming {up}" for up, down in apart]
                out["gamed"] = bool(flags)
                out["reason"] = None
    out["flags"] = flags

    biased = [r for r in rollouts if r.judge_position_bias is not None and r.breakdown.get("judge") is not None]
    if biased:
        flips = sum(r.judge_position_bias for r in biased)
        pairs = sum(r.judge_pairs or references for r in biased)
        out["position_bias_rate"] = _round(flips / pairs) if pairs else None
        out["position_bias_pairs"] = pairs
    else:
        out["position_bias_rate"] = None
        out["position_bias_pairs"] = 0
    return out


# ---------------------------------------------------------------- diversity


def _group_distance(items: list[tuple[Rollout, np.ndarray]]) -> dict[tuple[int, int], float]:
    groups: dict[tuple[int, int], list[np.ndarray]] = defaultdict(list)
    for r, th in items:
        groups[r.group_key].append(th)
    out = {}
    for k, ths in groups.items():
        d = images.mean_pairwise(ths)
        if d is not None:
            out[k] = d
    return out


def _step_means(by_group: dict[tuple[int, int], float]) -> dict[int, float]:
    """Per step, the mean of its groups' values."""
    by_step: dict[int, list[float]] = defaultdict(list)
    for (step, _), d in by_group.items():
        by_step[step].append(d)
    return {s: float(np.mean(v)) for s, v in by_step.items()}


def _across_prompts(items: list[tuple[Rollout, np.ndarray]], window=lambda r: r.step,
                    max_per_prompt: int = 4) -> dict[Any, float]:
    """Per window of training (a step, a third): mean distance between paintings of different prompts.

    Training often shows one prompt per step, so thirds are the usual window.
    """
    by_win: dict[Any, dict[str, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    for r, th in sorted(items, key=lambda it: it[0].step):
        by_win[window(r)][r.prompt_id].append(th)
    out = {}
    for win, prompts in by_win.items():
        if len(prompts) < 2:
            continue
        for p, ths in prompts.items():  # spread over the window, not its first paintings only
            if len(ths) > max_per_prompt:
                prompts[p] = [ths[i] for i in np.linspace(0, len(ths) - 1, max_per_prompt).round().astype(int)]
        keys = sorted(prompts)
        total, n = 0.0, 0
        for i, a in enumerate(keys):
            xa = np.stack(prompts[a]).reshape(len(prompts[a]), -1)
            for b in keys[i + 1:]:
                xb = np.stack(prompts[b]).reshape(len(prompts[b]), -1)
                d = np.abs(xa[:, None, :] - xb[None, :, :]).mean(axis=2)
                total += float(d.sum())
                n += d.size
        out[win] = total / n
    return out


def _by_thirds(values: dict[int, float], steps_parts: list[set[int]] | None) -> list[float | None] | None:
    if steps_parts is None:
        return None
    return [_round(_mean(v for s, v in values.items() if s in part)) for part in steps_parts]


#: The most training paintings the image measures open (whole GRPO groups, at most ``IMAGE_GROUPS_PER_STEP`` a
#: step, from steps spread evenly over the run, its last always among them). Every painting was opened: eval of a
#: 2,000-step run (128,000 paintings) took 16 minutes and 3.5 GB before it printed a word.
MAX_IMAGES, IMAGE_GROUPS_PER_STEP = 5000, 4


def spread(n: int, m: int) -> list[int]:
    """At most ``m`` indices of ``range(n)`` spread evenly, the first and the last among them (all when n <= m)."""
    if n <= m:
        return list(range(n))
    return sorted({round(x) for x in np.linspace(0, n - 1, m)})


def image_sample(rollouts: Sequence[Rollout]) -> tuple[list[Rollout], int]:
    """The rollouts whose paintings ``diversity`` opens (all of them up to ``MAX_IMAGES``), and how many steps
    they come from."""
    by_step: dict[int, dict[int, list[Rollout]]] = defaultdict(lambda: defaultdict(list))
    for r in rollouts:
        by_step[r.step][r.group].append(r)
    kept = {s: [r for g in sorted(gs)[:IMAGE_GROUPS_PER_STEP] for r in gs[g]] for s, gs in by_step.items()}
    steps = sorted(kept)
    total = sum(len(v) for v in kept.values())
    if total > MAX_IMAGES and steps:
        steps = [steps[i] for i in spread(len(steps), max(1, int(MAX_IMAGES / (total / len(steps)))))]
    return [r for s in steps for r in kept[s]], len(steps)


def diversity(rollouts: Sequence[Rollout], load: ImageLoader) -> dict[str, Any]:
    """Image distance within GRPO groups and across prompts, palette entropy, duplicate code, a collapse flag.
    The image measures read ``image_sample`` of the paintings; the duplicate code reads every rollout."""
    every = rollouts
    rollouts, n_steps = image_sample(every)
    items, entropies = [], []
    missing = 0
    for r in rollouts:
        got = load(r)
        if got is None:
            missing += 1
            continue
        items.append((r, got[0]))
        entropies.append((r.step, got[1]))
    parts = thirds(every)
    steps_parts = [{r.step for r in p} for p in parts] if parts is not None else None
    out: dict[str, Any] = {"n_images": len(items), "missing_images": missing,
                           "sampled": None if len(rollouts) == len(every) else
                           f"{len(rollouts):,} of {len(every):,} paintings, from {n_steps:,} of "
                           f"{len(steps_of(every)):,} steps"}

    within = _group_distance(items)
    within_step = _step_means(within)
    across_step = _across_prompts(items)
    third_of = {s: i for i, part in enumerate(steps_parts or []) for s in part}
    across_thirds = _across_prompts(items, lambda r: third_of.get(r.step)) if steps_parts else {}
    across_all = _across_prompts(items, lambda r: 0).get(0)
    ent_step: dict[int, list[float]] = defaultdict(list)
    for s, e in entropies:
        if e is not None:
            ent_step[s].append(e)
    ent_mean = {s: float(np.mean(v)) for s, v in ent_step.items()}

    out["within_group"] = _round(_mean(within.values()))
    out["within_group_thirds"] = _by_thirds(within_step, steps_parts)
    out["across_prompts"] = _round(across_all)
    out["across_prompts_thirds"] = [_round(across_thirds.get(i)) for i in range(3)] if steps_parts else None
    out["palette_entropy"] = _round(_mean(e for _, e in entropies))
    out["blank_rate"] = _round(_mean(float(e is None) for _, e in entropies))
    out["palette_entropy_thirds"] = _by_thirds(ent_mean, steps_parts)
    out["per_step"] = [{"step": s, "within_group": _round(within_step.get(s)), "across_prompts": _round(across_step.get(s)),
                        "palette_entropy": _round(ent_mean.get(s))} for s in steps_of(every)]

    groups: dict[tuple[int, int], list[bytes]] = defaultdict(list)
    for r in every:
        groups[r.group_key].append(r.code_key)  # (equal exactly when the code is: a loaded run keeps no code)
    out["duplicate_code_rate"] = _round(_repeated_code(list(groups.values())))

    # judge collapse on the late part of training (all of it when there are no thirds), over the paintings that
    # show paint: two blank canvases are alike because nothing was painted (blank_rate and the gate say so), and
    # counted in they called a run whose late groups painted nothing "collapsed" (distance 0.000)
    late_steps = steps_parts[2] if steps_parts is not None else set(steps_of(rollouts))
    painted = [it for it, (_, e) in zip(items, entropies) if e is not None]
    late_within = _mean(v for s, v in _step_means(_group_distance(painted)).items() if s in late_steps)
    if steps_parts:
        late_across = _across_prompts(painted, lambda r: third_of.get(r.step)).get(2)
    else:
        late_across = _across_prompts(painted, lambda r: 0).get(0)
    out["late_within_group"], out["late_across_prompts"] = _round(late_within), _round(late_across)
    reasons = []
    if late_within is not None and late_within < COLLAPSE_WITHIN:
        reasons.append(f"paintings inside a GRPO group are near-identical (distance {late_within:.3f} < {COLLAPSE_WITHIN})")
    if late_across is not None and late_across < COLLAPSE_ACROSS:
        reasons.append(f"different prompts get the same painting (distance {late_across:.3f} < {COLLAPSE_ACROSS})")
    small = _too_small_to_compare([r for r, _ in painted if r.step in late_steps])
    same_code = _repeated_code([g for k, g in groups.items() if k[0] in late_steps]) or 0.0
    if late_within is None and late_across is None:
        out["collapsed"] = None
        out["reason"] = ("no pair of painted images to compare late in training"
                         if len(painted) < len(items) else "no pair of readable images to compare")
    elif reasons and small and same_code < 0.5:  # identical code says collapse whatever the size
        out["collapsed"] = None
        out["reason"] = small
    else:
        out["collapsed"] = bool(reasons)
        out["reason"] = None
    out["collapse_reasons"] = reasons
    return out


def _repeated_code(groups: list[list[bytes]]) -> float | None:
    """The share of paintings (in groups of two or more) whose code another painting of their group also has.
    Counting the repeats after the first, a group of two with one program read 50%, never 100%."""
    in_groups = sum(len(g) for g in groups if len(g) > 1)
    if not in_groups:
        return None
    return sum(c for g in groups if len(g) > 1 for c in Counter(g).values() if c > 1) / in_groups


#: Below this median painted coverage image distances say little: different small paintings are close on a canvas of
#: paper (random blobs over 3.5% of the canvas: 0.0195 apart, under ``COLLAPSE_WITHIN``, and called collapsed).
COLLAPSE_MIN_COVERAGE = 0.10


def _too_small_to_compare(rollouts: Sequence[Rollout]) -> str | None:
    """Why the paintings are too small for the collapse thresholds, or None."""
    cov = [r.coverage for r in rollouts if r.coverage is not None]
    if not cov or float(np.median(cov)) >= COLLAPSE_MIN_COVERAGE:
        return None
    return (f"the paintings cover a median {float(np.median(cov)):.1%} of the canvas, too little for image distance to "
            f"tell a collapse from small paintings (it is judged from {COLLAPSE_MIN_COVERAGE:.0%})")


# ---------------------------------------------------------------- tool adherence

#: Tools of the tools/revise modes that are not p5.brush methods (aquarelle.train.tool_env.tool_names).
TOOL_EXTRAS = frozenset({"shape", "finish", "submit_sketch"})

_OUTSIDE_RE = re.compile(r"(\w+) is not in the (\S+) action space( \(and it is not a p5\.brush method\))?")
_UNKNOWN_RE = re.compile(r"(?:unknown (?:brush )?(?:method|tool|function)|not a p5\.brush method)[: ]*'?\"?(\w+)", re.I)


def _is_known(method: str) -> bool:
    return method in SPECS


def tool_adherence(rollouts: Sequence[Rollout], action_space: Any = "hf10") -> dict[str, Any]:
    """Calls outside the action space, invented methods, errors per episode, how often each method is used."""
    try:
        space = get_space(action_space)
    except CommandError:
        space = get_space("full")
    usage: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    invented: Counter[str] = Counter()
    attempts = malformed = failed = unanswered = 0
    with_transcript = 0
    for r in rollouts:
        t = r.transcript
        if t is not None:
            with_transcript += 1
            attempts += t.attempts
            malformed += t.malformed
            unanswered += t.unanswered
            failed += len(t.failures)
            for name, n in t.names.items():
                if name in TOOL_EXTRAS:
                    continue
                if not _is_known(name):
                    invented[name] += n
                elif name not in space:
                    outside[name] += n
        seen_in_methods = set(t.names) if t is not None else set()
        for m, n in r.methods.items():
            usage[m] += n
            if m in seen_in_methods:  # already counted from the transcript
                continue
            seen_in_methods.add(m)
            if not _is_known(m):
                invented[m] += n
            elif m not in space:
                outside[m] += n
        for e in policy_errors(r):
            mo = _OUTSIDE_RE.search(e)
            if mo and mo.group(1) not in seen_in_methods:
                (invented if mo.group(3) or not _is_known(mo.group(1)) else outside)[mo.group(1)] += 1
                continue
            mu = _UNKNOWN_RE.search(e)
            if mu and mu.group(1) not in seen_in_methods and not _is_known(mu.group(1)):
                invented[mu.group(1)] += 1
    calls = sum(usage.values())
    n_calls = [r.n_calls for r in rollouts if r.n_calls is not None]
    total_calls = max(calls, sum(n_calls), attempts) if n_calls else max(calls, attempts)
    errs = [len(policy_errors(r)) for r in rollouts]
    infra = sum(is_infrastructure(e) for r in rollouts for e in r.errors)
    parts = thirds(rollouts)
    out: dict[str, Any] = {
        "action_space": space.name,
        "episodes": len(rollouts),
        "calls": total_calls,
        "calls_per_episode": _round(_mean(n_calls)) if n_calls else _round(calls / len(rollouts)) if rollouts else None,
        "outside_calls": sum(outside.values()),
        "outside_rate": _round(sum(outside.values()) / total_calls) if total_calls else None,
        "outside_methods": dict(outside.most_common()),
        "invented_calls": sum(invented.values()),
        "invented_rate": _round(sum(invented.values()) / total_calls) if total_calls else None,
        "invented_methods": dict(invented.most_common()),
        "errors_per_episode": _round(_mean(errs)),
        "episodes_with_errors": _round(_mean(float(e > 0) for e in errs)),
        "errors_per_episode_thirds": None if parts is None else [_round(_mean(len(policy_errors(r)) for r in p))
                                                                 for p in parts],
        "infrastructure_errors": infra,
        "method_usage": {m: _round(n / calls) for m, n in usage.most_common()} if calls else {},
        "transcripts": with_transcript,
        "tool_call_attempts": attempts if with_transcript else None,
        "malformed_calls": malformed if with_transcript else None,
        "failed_calls": failed if with_transcript else None,
        "unanswered_calls": unanswered if with_transcript else None,
        "malformed_rate": _round(malformed / attempts) if attempts else None,
        "failed_rate": _round(failed / attempts) if attempts else None,
        "unanswered_rate": _round(unanswered / attempts) if attempts else None,
        "methods_used": len(usage),
    }
    space_size = len(space.methods)
    out["space_methods_used"] = _round(len([m for m in usage if m in space.methods]) / space_size) if space_size else None
    return out


# ---------------------------------------------------------------- bad rollouts, coverage


def bad_rollouts(rollouts: Sequence[Rollout], threshold: float = BAD_REWARD) -> dict[str, Any]:
    """Share of scored rollouts whose reward is below the threshold, overall and by third."""
    scored = [r for r in rollouts if r.reward is not None]
    parts = thirds(rollouts)  # the same steps in each third as the reward trend's

    def rate(rs: Sequence[Rollout]) -> float | None:
        return _round(_mean(float(r.reward < threshold) for r in rs if r.reward is not None))

    return {"threshold": threshold, "rate": rate(scored), "n": len(scored),
            "unscored": len(rollouts) - len(scored),
            "thirds": None if parts is None else [rate(p) for p in parts],
            "reason": SHORT_RUN if parts is None else None}


def coverage_stats(rollouts: Sequence[Rollout]) -> dict[str, Any]:
    """Painted-coverage distribution, by third, and whether the preference scorer cares about it at high reward."""
    cov = [r for r in rollouts if r.coverage is not None]
    if not cov:
        return {"n": 0, "mean": None, "median": None, "p10": None, "p90": None, "min": None, "max": None,
                "below_gate": None, "thirds": None, "change": None, "corr_preference": None,
                "corr_preference_high_reward": None,
                "reason": "no rollout has a coverage value"}
    v = np.array([r.coverage for r in cov])
    parts = thirds(cov)
    means = None if parts is None else [_mean(r.coverage for r in p) for p in parts]
    pref = [(r.coverage, r.breakdown["preference"], r.reward) for r in cov if r.breakdown.get("preference") is not None]
    high = []
    if pref:
        rewards = [p[2] for p in pref if p[2] is not None]
        med = float(np.median(rewards)) if rewards else None
        high = [p for p in pref if med is not None and p[2] is not None and p[2] >= med]
    return {
        "n": len(cov), "mean": _round(float(v.mean())), "median": _round(float(np.median(v))),
        "p10": _round(float(np.percentile(v, 10))), "p90": _round(float(np.percentile(v, 90))),
        "min": _round(float(v.min())), "max": _round(float(v.max())),
        "below_gate": _round(float((v < MIN_COVERAGE).mean())),
        "thirds": None if means is None else [_round(m) for m in means],
        "change": None if means is None else _round(_delta(means[0], means[2])),
        "corr_preference": _corr([p[0] for p in pref], [p[1] for p in pref]) if pref else None,
        "corr_preference_high_reward": _corr([p[0] for p in high], [p[1] for p in high]) if high else None,
        "reason": None,
    }


# ---------------------------------------------------------------- held-out


def _prompt_mean(rollouts: Sequence[Rollout], value: Callable[[Rollout], float | None]) -> float | None:
    """The mean over prompts of each prompt's mean value (None values left out): every prompt weighs the same, as in
    ``policy_comparison``. Pooled, a verdict said "0.63 on held-out" and, in the same sentence, "0.50" for the same
    samples, where unscored samples left some prompts with fewer."""
    return _mean(_prompt_means(rollouts, value).values())


def _prompt_means(rollouts: Sequence[Rollout], value: Callable[[Rollout], float | None]) -> dict[str, float]:
    """Each prompt's mean value (None values left out), by prompt id."""
    by: dict[str, list[float]] = defaultdict(list)
    for r in rollouts:
        v = value(r)
        if v is not None:
            by[r.prompt_id].append(v)
    return {p: float(np.mean(v)) for p, v in by.items()}


def summary(rollouts: Sequence[Rollout], load: ImageLoader | None = None, action_space: Any = "hf10") -> dict[str, Any]:
    """The headline measures of one set of rollouts (one policy on one prompt split)."""
    scored = [r for r in rollouts if r.reward is not None]
    out: dict[str, Any] = {
        "n": len(rollouts),
        "prompts": len({r.prompt_id for r in rollouts}),
        "reward": _round(_prompt_mean(rollouts, lambda r: r.reward)),
        "reward_std": _round(float(np.std([r.reward for r in scored]))) if len(scored) > 1 else None,
        **{t: _round(_prompt_mean(rollouts, lambda r, t=t: r.breakdown.get(t))) for t in TERMS},
        "bad_rate": bad_rollouts(rollouts)["rate"],
        "coverage": _round(_mean(r.coverage for r in rollouts)),
    }
    ta = tool_adherence(rollouts, action_space)
    out["errors_per_episode"] = ta["errors_per_episode"]
    out["outside_rate"] = ta["outside_rate"]
    out["invented_rate"] = ta["invented_rate"]
    if load is not None:
        ths, ents = [], []
        # (at most MAX_IMAGES of them, spread evenly: a long run's last tenth is thousands of paintings)
        pick = [rollouts[i] for i in spread(len(rollouts), MAX_IMAGES)]
        out["images_read"] = len(pick)
        for r in pick:
            got = load(r)
            if got is not None:
                ths.append((r, got[0]))
                ents.append(got[1])
        out["across_prompts"] = _round(_across_prompts(ths, lambda r: 0).get(0))
        out["within_prompt"] = _round(_within_prompt(ths))
        out["palette_entropy"] = _round(_mean(ents))
        # the same over the paintings that show paint: a blank canvas and a small painting are "near-identical"
        # thumbnails (0.014 in the demo's samples), which says nothing about collapse (``sampled_checks``)
        painted = [it for it, e in zip(ths, ents) if e is not None]
        out["painted_across_prompts"] = _round(_across_prompts(painted, lambda r: 0).get(0))
        out["painted_within_prompt"] = _round(_within_prompt(painted))
    return out


def _within_prompt(ths: list[tuple[Rollout, np.ndarray]]) -> float | None:
    per_prompt: dict[str, list[np.ndarray]] = defaultdict(list)
    for r, t in ths:
        per_prompt[r.prompt_id].append(t)
    return _mean(images.mean_pairwise(v) for v in per_prompt.values())


_GAP_KEYS = ("reward", "judge", "preference", "bad_rate", "coverage", "errors_per_episode", "across_prompts",
             "palette_entropy")


def gap(train: dict[str, Any], heldout_: dict[str, Any]) -> dict[str, float | None]:
    """Training-prompt value minus held-out value for each headline measure (positive reward gap = worse on new prompts)."""
    return {k: _round(_delta(heldout_.get(k), train.get(k))) for k in _GAP_KEYS if k in train or k in heldout_}


def heldout(train_rollouts: Sequence[Rollout], heldout_rollouts: Sequence[Rollout], load: ImageLoader | None = None,
            action_space: Any = "hf10") -> dict[str, Any]:
    """The same measures on held-out and training prompts, the gap, and whether the policy holds on new prompts.

    Whether it holds is read from the gap's interval over prompts (``gap_interval``), not from the gap alone: with
    held-out rewards drawn from the training ones' own distribution, a fixed margin said "does worse" in ~30% of
    evals of 2 prompts x 2 samples and ~20% of 8 x 8. It does worse (False) when the whole interval lies past the
    margin; it holds (True) when the gap is within the margin; a gap past it that the interval cannot tell from noise,
    or fewer than ``CI_MIN_PROMPTS`` held-out prompts, is None with the reason."""
    tr = summary(train_rollouts, load, action_space)
    ho = summary(heldout_rollouts, load, action_space)
    g = gap(tr, ho)
    tm = list(_prompt_means(train_rollouts, lambda r: r.reward).values())
    hm = list(_prompt_means(heldout_rollouts, lambda r: r.reward).values())
    ci = gap_interval(tm, hm)
    if tr["reward"] is None or ho["reward"] is None:
        holds, reason = None, "no scored rollouts on " + ("training" if tr["reward"] is None else "held-out") + " prompts"
    elif ci is None and len(hm) < CI_MIN_PROMPTS:
        holds, reason = None, (f"{len(hm)} held-out prompt{'' if len(hm) == 1 else 's'} with a scored sample cannot "
                               f"tell a gap from noise (an interval needs {CI_MIN_PROMPTS})")
    elif ci is None:  # the held-out side had enough: the training side had one prompt (a short run's last third)
        holds, reason = None, (f"the training side has {len(tm)} prompt{'' if len(tm) == 1 else 's'} with a scored "
                               f"rollout, too few for an interval (it needs 2)")
    elif ci[0] > HOLD_MARGIN:
        holds, reason = False, None
    elif tr["reward"] - ho["reward"] <= HOLD_MARGIN:
        holds, reason = True, None
    else:
        holds, reason = None, "the gap is past the margin but within its noise"
    return {"train": tr, "heldout": ho, "gap": g, "gap_ci": ci, "holds": holds, "margin": HOLD_MARGIN,
            "reason": reason}


def gap_interval(train_means: Sequence[float], heldout_means: Sequence[float], level: float = CI_LEVEL
                 ) -> list[float] | None:
    """Welch's t interval for mean(training) - mean(held-out) over per-prompt means (prompts are what a held-out
    set samples); None with fewer than ``CI_MIN_PROMPTS`` held-out or 2 training prompts."""
    from scipy import stats

    a, b = np.asarray(train_means, dtype=np.float64), np.asarray(heldout_means, dtype=np.float64)
    if len(b) < CI_MIN_PROMPTS or len(a) < 2 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return None
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if se > 0 else len(a) + len(b) - 2
    half = float(stats.t.ppf((1 + level) / 2, df) * se)
    d = float(a.mean() - b.mean())
    lo, hi = _round(d - half), _round(d + half)
    return None if lo is None or hi is None else [lo, hi]


def policy_comparison(trained: Sequence[Rollout], start: Sequence[Rollout]) -> dict[str, Any]:
    """Trained against starting policy on the same prompts: mean of per-prompt means, their difference, win rate."""
    t_by: dict[str, list[float]] = defaultdict(list)
    s_by: dict[str, list[float]] = defaultdict(list)
    for r in trained:
        if r.reward is not None:
            t_by[r.prompt_id].append(r.reward)
    for r in start:
        if r.reward is not None:
            s_by[r.prompt_id].append(r.reward)
    common = sorted(set(t_by) & set(s_by))
    wins = [float(np.mean(t_by[p]) > np.mean(s_by[p])) + 0.5 * float(np.mean(t_by[p]) == np.mean(s_by[p]))
            for p in common]
    # each prompt weighs the same for both policies: pooled samples compare prompt mixes when their counts differ
    t_mean = _mean(float(np.mean(t_by[p])) for p in common)
    s_mean = _mean(float(np.mean(s_by[p])) for p in common)
    diffs = [float(np.mean(t_by[p]) - np.mean(s_by[p])) for p in common]
    # the counts beside the rate: with ties at half, two prompts where both policies scored 0 read "better on 50%"
    return {"prompts": len(common), "trained_reward": _round(t_mean), "start_reward": _round(s_mean),
            "improvement": _round(_delta(s_mean, t_mean)), "win_rate": _round(_mean(wins)),
            "better": sum(w == 1.0 for w in wins), "level": sum(w == 0.5 for w in wins),
            "worse": sum(w == 0.0 for w in wins),
            "improvement_ci": improvement_interval(diffs),
            "reason": None if common else "no prompt has scored samples from both policies"}




def improvement_interval(diffs: Sequence[float], level: float = CI_LEVEL) -> list[float] | None:
    """Student's t interval for the mean per-prompt improvement (the prompts a sample of those the policy may meet);
    None below ``CI_MIN_PROMPTS`` prompts. Why an interval: a mean over a handful of prompts moves by tenths between
    samplings, and "improved by +0.05" means nothing without its spread. Why t: the percentile bootstrap used before
    is too narrow over 5-8 prompts (eval's default spreads 8 samples over 8): with no true change it called 14% of
    simulated evals real or worse, where a 95% interval should call 5%; the t interval called 6%."""
    from scipy import stats

    if len(diffs) < CI_MIN_PROMPTS:
        return None
    d = np.asarray(diffs, dtype=np.float64)
    if not np.all(np.isfinite(d)):
        return None
    half = float(stats.t.ppf((1 + level) / 2, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)))
    lo, hi = _round(float(d.mean()) - half), _round(float(d.mean()) + half)
    return None if lo is None or hi is None else [lo, hi]


def sampled_checks(trained: dict[str, Any] | None, start: dict[str, Any] | None,
                   paired: Sequence[Sequence[Rollout]] | None = None) -> dict[str, Any]:
    """Gaming and collapse in the sampled trained policy (``summary`` of its held-out samples, and of the starting
    policy's): the training-rollout checks (``scorer_agreement``, ``diversity``) never look at the policy being
    evaluated, so a policy whose samples scored 0.75 against the start's 0.45 with the judge at 0.05 against 0.5, all
    twelve paintings one image, passed both. The thresholds are the training checks' own (``RISE``,
    ``COLLAPSE_WITHIN``, ``COLLAPSE_ACROSS``).

    With ``paired`` (the trained and the starting policy's held-out samples), scorers moving apart is a flag only
    where each move's interval over prompts (``improvement_interval``) excludes 0; otherwise it is a hint (the
    verdict: cannot rule it out). From the means alone, one pair of paintings moving by 0.1 said "Likely", and
    identical policies under scorer noise were flagged in 30% of evals of 2 prompts x 2 samples."""
    flags: list[str] = []
    hints: list[str] = []
    collapse: list[str] = []
    if trained and start:
        d = {t: _delta(start.get(t), trained.get(t)) for t in ("judge", "preference")}
        if d["judge"] is not None and d["preference"] is not None:
            for up, down in (("preference", "judge"), ("judge", "preference")):
                if not (d[up] > RISE and d[down] < -RISE):
                    continue
                text = (f"on held-out samples the trained policy's {up} is {d[up]:+.2f} against the starting policy's "
                        f"while its {down} is {d[down]:+.2f}")
                if paired is None:
                    flags.append(text + f": it may be gaming {up}")
                    continue
                diffs = {t: _paired_diffs(paired, t) for t in (up, down)}
                ci = {t: improvement_interval(v) for t, v in diffs.items()}
                n = len(diffs[up])
                if ci[up] is None or ci[down] is None:
                    hints.append(text + f", over {n} prompt{'' if n == 1 else 's'}: too few to tell from noise "
                                        f"(an interval needs {CI_MIN_PROMPTS})")
                elif ci[up][0] > 0 and ci[down][1] < 0:
                    flags.append(text + f" (95% intervals over {n} prompts: {up} {ci[up][0]:+.2f} to {ci[up][1]:+.2f}, "
                                        f"{down} {ci[down][0]:+.2f} to {ci[down][1]:+.2f}): it may be gaming {up}")
                else:
                    hints.append(text + f", but within their noise over {n} prompts ({up} {ci[up][0]:+.2f} to "
                                        f"{ci[up][1]:+.2f}, {down} {ci[down][0]:+.2f} to {ci[down][1]:+.2f})")
    if paired is not None:  # eval paints sample i with its own seed, so one program drew apart and was not flagged
        collapse += _same_code(paired[0])
    small = _too_small_to_compare(paired[0]) if paired is not None else None
    if trained and not small:  # over the paintings that show paint, as ``diversity`` judges training
        within, across = trained.get("painted_within_prompt"), trained.get("painted_across_prompts")
        if within is not None and within < COLLAPSE_WITHIN:
            collapse.append(f"the trained policy's samples of one held-out prompt are near-identical (distance "
                            f"{within:.3f} < {COLLAPSE_WITHIN})")
        if across is not None and across < COLLAPSE_ACROSS:
            collapse.append(f"different held-out prompts get the same painting from the trained policy (distance "
                            f"{across:.3f} < {COLLAPSE_ACROSS})")
    return {"gaming_flags": flags, "gaming_hints": hints, "collapse_reasons": collapse}


def _same_code(samples: Sequence[Rollout]) -> list[str]:
    """Collapse read from the code: every sample of most held-out prompts the same program, or one program for all."""
    by: dict[str, list[str]] = defaultdict(list)
    for r in samples:
        if r.code and r.code.strip():
            by[r.prompt_id].append(" ".join(r.code.split()))
    multi = [v for v in by.values() if len(v) > 1]
    out = []
    same = sum(len(set(v)) == 1 for v in multi)
    if multi and same * 2 > len(multi):
        out.append(f"the trained policy writes one program for every sample of a held-out prompt ({same} of "
                   f"{len(multi)} prompts)")
    if len(by) > 1 and len({c for v in by.values() for c in v}) == 1:
        out.append(f"the trained policy writes the same program for all {len(by)} held-out prompts")
    return out


def _paired_diffs(paired: Sequence[Sequence[Rollout]], term: str) -> list[float]:
    """Per prompt, the trained policy's mean ``term`` less the starting policy's (prompts both scored)."""
    t = _prompt_means(paired[0], lambda r: r.breakdown.get(term))
    s0 = _prompt_means(paired[1], lambda r: r.breakdown.get(term))
    return [t[p] - s0[p] for p in sorted(set(t) & set(s0))]
