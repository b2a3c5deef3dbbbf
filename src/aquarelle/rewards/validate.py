"""Does each scorer order the pool's tiers? Pairwise accuracy on a split of the pool.

For the preference scorer: the fraction of (higher-tier, lower-tier) pairs whose
scores are in the right order (a tie counts half). For the judge: the pairwise
question itself, asked in both orders (1 / 0.5 / 0 per pair, like the reward).
"""

from __future__ import annotations


import numpy as np

from .config import RewardConfig, RewardError
from .judge import judge_against
from .pool import Pool, tier_pairs

ORDERS = (("love", "reject"), ("okay", "reject"), ("love", "okay"))


def _acc_scores(scores: dict[str, float], entries, hi: str, lo: str) -> float:
    pairs = tier_pairs(entries, hi, lo)
    if not pairs:
        return float("nan")
    return float(np.mean([1.0 if scores[a.id] > scores[b.id] else 0.5 if scores[a.id] == scores[b.id] else 0.0
                          for a, b in pairs]))


def validate_pool(pool: Pool, config: RewardConfig | None = None, split: str = "heldout") -> dict:
    """Accuracies per scorer; the configured judge/preference backends are validated too when not local."""
    from .composite import RewardModel

    config = config or RewardConfig()
    entries = pool.select(split=split)
    # a table of nan with exit 0 read as a validation that passed
    if not entries:
        raise RewardError(f"pool {pool.root}: split {split} has no paintings to validate on")
    if not any(tier_pairs(entries, *o) for o in ORDERS):
        raise RewardError(f"pool {pool.root}: split {split} has no two tiers to compare (its {len(entries)} "
                          f"painting(s) are all {entries[0].tier})")
    model = RewardModel(config)
    size = config.render_size
    images = {e.id: pool.image(e) for e in entries}
    out: dict[str, dict[str, float]] = {}

    judge = model.judge_backend()
    pairs = {o: tier_pairs(entries, *o) for o in ORDERS}
    needed = {(a.id, b.id) for ps in pairs.values() for a, b in ps}
    verdict: dict[tuple[str, str], float] = {}
    for a_id, b_id in sorted(needed):
        img = images[a_id] if judge.name != "local" else pool.image(pool.get(a_id), size)
        ref = images[b_id] if judge.name != "local" else pool.image(pool.get(b_id), size)
        verdict[(a_id, b_id)] = judge_against(judge, img, [(b_id, ref)]).score
    out[f"judge[{judge.name}]"] = {f"{hi}>{lo}": float(np.mean([verdict[(a.id, b.id)] for a, b in ps]))
                                   if ps else float("nan") for (hi, lo), ps in pairs.items()}

    pref = model.preference_backend()
    scores = {e.id: pref.score(images[e.id] if pref.name != "local" else pool.image(e, size))[0] for e in entries}
    out[f"preference[{pref.name}]"] = {f"{hi}>{lo}": _acc_scores(scores, entries, hi, lo) for hi, lo in ORDERS}

    tiers = {t: sum(e.tier == t for e in entries) for t in ("love", "okay", "reject")}
    return {"split": split, "n": len(entries), "tiers": tiers, "scorers": out,
            "preference_scores": {k: round(v, 4) for k, v in scores.items()}}


