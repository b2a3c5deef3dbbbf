"""The reward model the environment scores with: ``aquarelle.rewards`` when present.

TEMPORARY: until ``aquarelle.rewards.RewardModel`` lands (docs/CONTRACTS.md),
a small fallback with the same interface scores the gate only (the sketch's
errors and violations, coverage < 0.5%) and gives the painted coverage as reward.
Delete the fallback once the real one exists.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

#: The published gate's floor: less painted than this is "nothing painted".
MIN_COVERAGE = 0.005


def _real() -> Any:
    try:
        import aquarelle.rewards as r

        r.RewardModel, r.resolve_weights  # noqa: B018 - probe the contract
        return r
    except (ImportError, AttributeError):
        return None


def make_reward_model(config: dict | None = None) -> Any:
    """The contract's RewardModel built from a config dict, or the gate-only fallback."""
    r = _real()
    if r is None:
        return FallbackRewardModel()
    cfg = r.RewardConfig(**config) if config else None
    return r.RewardModel(cfg)


def resolve_weights(preset: str | None = None, weights: dict | None = None) -> Any:
    """Per-episode weights: the contract's resolver, or a plain validated dict in the fallback."""
    r = _real()
    if r is not None:
        return r.resolve_weights(preset=preset, weights=weights)
    if weights is not None:
        bad = [k for k, v in weights.items() if not isinstance(v, (int, float)) or isinstance(v, bool)]
        if bad:
            raise ValueError(f"weights: {bad[0]!r} must be a number")
        return FallbackWeights(values={k: float(v) for k, v in weights.items()})
    if preset is not None and preset not in FALLBACK_PRESETS:
        raise ValueError(f"unknown reward preset {preset!r} (known: {', '.join(FALLBACK_PRESETS)})")
    return FallbackWeights(values=dict(FALLBACK_PRESETS[preset or "judge-led"]))


# --------------------------------------------------------------------------- fallback (delete when rewards lands)

FALLBACK_PRESETS = {
    "judge-led": {"gate": 0.05, "length": 0.05, "judge": 0.60, "preference": 0.30},
    "hps-led": {"gate": 0.05, "length": 0.05, "judge": 0.30, "preference": 0.60},
    "hps-only": {"gate": 0.05, "length": 0.05, "judge": 0.0, "preference": 0.90},
}


class FallbackWeights(BaseModel):
    values: dict[str, float]

    def model_dump(self, **_: Any) -> dict:  # the same shape as Weights.model_dump()
        return dict(self.values)


class FallbackResult(BaseModel):
    reward: float | None
    breakdown: dict[str, float | None]
    weights: dict[str, float] = Field(default_factory=dict)
    gate_reasons: list[str] = Field(default_factory=list)
    error: str | None = None
    critique: str = ""
    judge_position_bias: int = 0


class FallbackRewardModel:
    """Gate + coverage only; the judge and preference terms are absent (None)."""

    def score(self, *, image: Any, program: Any, mode: str, source: str | None = None, n_calls: int | None = None,
              violations: Any = (), error: str | None = None, weights: Any = None, group_seed: int = 0) -> FallbackResult:
        reasons = list(violations)
        if error:
            reasons.append(error)
        cov = 0.0
        if image is not None and program is not None:
            from aquarelle.render import background_of
            from aquarelle.render.coverage import coverage

            cov = float(coverage(image, background=background_of(program)))
        elif not reasons:
            reasons.append("nothing was rendered")
        if not reasons and cov < MIN_COVERAGE:
            reasons.append(f"only {cov:.2%} of the canvas is painted (< {MIN_COVERAGE:.1%})")
        w = weights.model_dump() if weights is not None else dict(FALLBACK_PRESETS["judge-led"])
        gate = 0.0 if reasons else 1.0
        critique = ("Gate failed: " + "; ".join(reasons)) if reasons else (
            f"Passed the gate with {cov:.0%} of the canvas painted (judge and preference scorers not installed).")
        return FallbackResult(
            reward=0.0 if reasons else round(cov, 6),
            breakdown={"gate": gate, "length": None, "judge": None, "preference": None},
            weights=w, gate_reasons=reasons, critique=critique,
        )
