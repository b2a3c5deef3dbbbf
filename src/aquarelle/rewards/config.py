"""Reward weights, presets and the scorer configuration.

Weights are plain data resolved per call (a preset name, a config file or a
per-episode dict), never read once from the environment at import: changing the
mix must not need a restart.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..configfile import read_mapping

TERMS = ("gate", "length", "judge", "preference")


class Weights(BaseModel):
    """How much each term counts: reward = gate x (gate + length*L + judge*J + preference*P)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # an inf weight made reward inf/NaN
    gate: float = Field(0.05, ge=0)
    length: float = Field(0.05, ge=0)
    judge: float = Field(0.60, ge=0)
    preference: float = Field(0.30, ge=0)

    @model_validator(mode="after")
    def _not_all_zero(self) -> "Weights":
        if self.gate + self.length + self.judge + self.preference <= 0:
            raise ValueError("weights must not all be zero")
        return self

    def as_dict(self) -> dict[str, float]:
        return {t: float(getattr(self, t)) for t in TERMS}


PRESETS: dict[str, Weights] = {
    "judge-led": Weights(gate=0.05, length=0.05, judge=0.60, preference=0.30),
    "hps-led": Weights(gate=0.05, length=0.05, judge=0.30, preference=0.60),
    "hps-only": Weights(gate=0.05, length=0.05, judge=0.00, preference=0.90),
}
DEFAULT_PRESET = "judge-led"
DEFAULT_JUDGE_MODEL = "Qwen/Qwen3-VL-30B-A3B-Instruct"


class RewardError(ValueError):
    """Bad reward configuration (unknown preset, bad weights): a one-line message."""


def resolve_weights(preset: str | None = None, weights: dict | Weights | None = None, *,
                    base: Weights | None = None) -> Weights:
    """A preset (else ``base``, the weights a scorer was configured with, else judge-led), with any keys of
    ``weights`` overriding it."""
    if preset or base is None:
        name = preset or DEFAULT_PRESET
        if name not in PRESETS:
            raise RewardError(f"unknown reward preset {name!r} (known: {', '.join(PRESETS)})")
        base = PRESETS[name]
    if weights is None:
        return base
    if isinstance(weights, Weights):
        return weights
    if not isinstance(weights, dict):
        raise RewardError(f"weights must be a mapping of {', '.join(TERMS)}, got {type(weights).__name__}")
    unknown = [k for k in weights if k not in TERMS]
    if unknown:
        raise RewardError(f"unknown weight term(s) {', '.join(map(str, unknown))} (known: {', '.join(TERMS)})")
    try:
        return Weights(**{**base.as_dict(), **weights})
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err["msg"]).removeprefix("Value error, ")  # the all-zero check is a ValueError: say only why
        raise RewardError(f"bad weight {where}: {msg}" if where else f"bad weights: {msg}") from None


def reset_scoring(preset: str | None, weights: dict | None) -> dict[str, Any]:
    """What an environment reset takes for a preset and weights: it takes one of them, not both, so given terms
    come with the preset's others filled in (docs/config.md: the terms given override the configured preset's).
    Weights without a preset go as given: the environment fills the other terms from the weights its scorer was
    configured with, which this side does not know (filled here, they came from judge-led)."""
    if weights and preset:
        return {"weights": resolve_weights(preset, weights).as_dict()}
    if weights:
        return {"weights": dict(weights)}
    return {"preset": preset} if preset else {}


class ReferenceCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    love: int = Field(2, ge=0)
    okay: int = Field(2, ge=0)


class RewardConfig(BaseModel):
    """Scorer backends and their settings; every field has an embedded default.

    URLs, model names and the API key may also come from the environment
    (``AQUARELLE_JUDGE_URL``, ``AQUARELLE_JUDGE_MODEL``, the variable named by
    ``judge_api_key_env``, ``AQUARELLE_HPS_URL``) when the config leaves them empty.
    """

    model_config = ConfigDict(extra="forbid")
    preset: str = DEFAULT_PRESET
    weights: dict[str, float] | None = None
    judge_backend: Literal["local", "openai"] = "local"
    judge_url: str | None = None
    judge_model: str | None = None  # default DEFAULT_JUDGE_MODEL
    judge_api_key_env: str | None = None  # default AQUARELLE_JUDGE_API_KEY, then OPENAI_API_KEY
    judge_timeout_s: float = Field(60.0, gt=0)
    judge_retries: int = Field(2, ge=0)
    judge_backoff_s: float = Field(1.0, ge=0)
    judge_concurrency: int = Field(8, ge=1)
    judge_image_size: int = Field(512, ge=64)
    judge_cache_size: int = Field(4096, ge=0)
    preference_backend: Literal["local", "hpsv3"] = "local"
    preference_url: str | None = None
    preference_timeout_s: float = Field(60.0, gt=0)
    preference_retries: int = Field(2, ge=0)
    references: ReferenceCounts = ReferenceCounts()
    reference_split: Literal["all", "design", "heldout"] = "all"
    pool_dir: str | None = None  # default: the repository's pool/
    render_size: int = Field(256, ge=32)  # size images are scored at by the local scorers

    @model_validator(mode="after")
    def _check_weights(self) -> "RewardConfig":
        w = resolve_weights(self.preset, self.weights)
        if w.judge > 0 and self.references.love + self.references.okay == 0:  # else every reward None, unexplained
            raise ValueError(f"the judge (weight {w.judge:g}) needs at least one reference painting (references: "
                             "love + okay >= 1), or give the judge weight 0")
        return self

    def resolved_judge_url(self) -> str | None:
        return self.judge_url or os.environ.get("AQUARELLE_JUDGE_URL") or None

    def resolved_judge_model(self) -> str:
        return self.judge_model or os.environ.get("AQUARELLE_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL

    def resolved_api_key(self) -> str:
        return (os.environ.get(self.judge_api_key_env or "AQUARELLE_JUDGE_API_KEY")
                or os.environ.get("OPENAI_API_KEY") or "none")

    def resolved_preference_url(self) -> str | None:
        return self.preference_url or os.environ.get("AQUARELLE_HPS_URL") or None

    def weights_resolved(self) -> Weights:
        return resolve_weights(self.preset, self.weights)


def load_config(path: str | Path | None = None, **overrides: Any) -> RewardConfig:
    """Read a JSON or YAML reward config (or the defaults), with keyword overrides.

    The file is a flat reward config, one under a ``rewards:`` key, or a training config
    (docs/config.md), whose ``reward:`` section is read the way training reads it.
    """
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        data = read_mapping(p, "reward config", RewardError)
        if "rewards" in data:
            data = data["rewards"] or {}
            if not isinstance(data, dict):
                raise RewardError(f"reward config {p}: 'rewards' must be a mapping")
        elif _is_training_config(data):
            data = _training_reward_section(data, p)
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return RewardConfig(**data)
    except ValidationError as e:
        err = e.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")
        where = ".".join(str(x) for x in err.get("loc", ()))
        raise RewardError(f"bad reward config field {where}: {msg}" if where else f"bad reward config: {msg}") from None


def _is_training_config(data: dict) -> bool:
    """A training config (aquarelle.train.config.TrainConfig): its keys never overlap a flat reward config's."""
    return bool(set(data) & {"reward", "mode", "model", "generation", "optim", "sft", "env", "prompts"})


def _training_reward_section(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The RewardConfig keywords a training run builds from the training config's ``reward:`` section."""
    from ..train.config import ConfigError, config_from

    try:
        section = config_from(data).reward
    except ConfigError as e:
        raise RewardError(f"training config {path}: {e}") from None
    return {**section.reward_config(), "preset": section.preset, "weights": section.weights}
