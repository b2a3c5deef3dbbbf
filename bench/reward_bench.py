"""Reward benchmark: local judge + preference cost, and whether each scorer orders the pool's tiers.

Run: OMP_NUM_THREADS=1 .venv/bin/python -m bench.reward_bench  (renders the pool first if needed)
Writes bench/results/rewards.json and prints a short table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from bench.machine import describe

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=Path(__file__).resolve().parent / "results",
                    help="folder for rewards.json")
    args = ap.parse_args(argv)
    import numpy as np

    from aquarelle.rewards.composite import RewardModel
    from aquarelle.rewards.config import RewardConfig
    from aquarelle.rewards.critic import LocalJudge
    from aquarelle.rewards.judge import judge_against
    from aquarelle.rewards.pool import Pool
    from aquarelle.rewards.preference import LocalPreference
    from aquarelle.rewards.validate import validate_pool

    pool = Pool()
    t0 = time.perf_counter()
    fresh = sum(pool.render(e)[1] for e in pool.entries)
    render_s = time.perf_counter() - t0
    judge, pref = LocalJudge(), LocalPreference()
    images = [pool.image(e) for e in pool.entries]
    refs = [(e.id, pool.image(e)) for e in pool.sample_references(0)]
    judge_against(judge, images[0], refs)  # warm the reference features, as in training
    times, jt, pt = [], [], []
    for rep in range(3):
        for img in images:
            img = img.copy()  # a new painting each time: no feature cache hit for it
            a = time.perf_counter()
            judge_against(judge, img, refs)
            b = time.perf_counter()
            pref.score(img)
            c = time.perf_counter()
            jt.append((b - a) * 1e3)
            pt.append((c - b) * 1e3)
            times.append((c - a) * 1e3)
    # the whole composite (gate + coverage + length + both scorers) on an already-rendered image
    model = RewardModel(RewardConfig())
    model.score(image=images[0], program=None, mode="tools", n_calls=100)
    ct = []
    for img in images:
        a = time.perf_counter()
        model.score(image=img.copy(), program=None, mode="tools", n_calls=100)
        ct.append((time.perf_counter() - a) * 1e3)
    # do the two local scorers disagree? (they should sometimes: different features)
    pv = [pref.score(img)[0] for img in images]
    disagree = n_pairs = 0
    for i in range(len(images)):
        for k in range(i + 1, len(images)):
            j = judge_against(judge, images[i], [("x", images[k])]).score
            if j == 0.5 or pv[i] == pv[k]:
                continue
            n_pairs += 1
            disagree += (j == 1.0) != (pv[i] > pv[k])
    acc = {split: validate_pool(pool, RewardConfig(), split=split)["scorers"] for split in ("design", "heldout")}
    pct = lambda xs, q: float(np.percentile(xs, q))  # noqa: E731
    out = {
        "machine": describe(omp_threads=os.environ.get("OMP_NUM_THREADS")),
        "pool": {"paintings": len(pool), "rendered_now": int(fresh), "render_s": round(render_s, 2)},
        "timing_ms": {
            "judge_plus_preference_vs_4_refs": {"p50": pct(times, 50), "p99": pct(times, 99), "n": len(times)},
            "judge_vs_4_refs": {"p50": pct(jt, 50), "p99": pct(jt, 99)},
            "preference": {"p50": pct(pt, 50), "p99": pct(pt, 99)},
            "composite_score_on_image": {"p50": pct(ct, 50), "p99": pct(ct, 99)},
            "goal_ms": 30.0,
        },
        "tier_accuracy": acc,
        "judge_vs_preference_disagreement": {"pairs": n_pairs, "fraction": disagree / max(n_pairs, 1)},
    }
    res = args.results
    res.mkdir(parents=True, exist_ok=True)
    (res / "rewards.json").write_text(json.dumps(out, indent=1))
    t = out["timing_ms"]
    print(f"judge+preference vs 4 refs: p50 {t['judge_plus_preference_vs_4_refs']['p50']:.1f} ms, "
          f"p99 {t['judge_plus_preference_vs_4_refs']['p99']:.1f} ms (goal <= 30 ms, one core)")
    print(f"composite on a rendered image: p50 {t['composite_score_on_image']['p50']:.1f} ms")
    print(f"local judge and preference disagree on {out['judge_vs_preference_disagreement']['fraction']:.1%} "
          f"of {n_pairs} decided pool pairs")
    print(f"{'split':<9}{'scorer':<20}{'love>reject':>12}{'okay>reject':>12}{'love>okay':>10}")
    for split, scorers in acc.items():
        for name, a in scorers.items():
            print(f"{split:<9}{name:<20}{a['love>reject']:>12.3f}{a['okay>reject']:>12.3f}{a['love>okay']:>10.3f}")
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
