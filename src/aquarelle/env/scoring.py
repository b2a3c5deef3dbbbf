"""The reward model and per-episode weights the environment scores with (``aquarelle.rewards``).

One place builds them so the server's worker processes and the in-process
environment read the same configuration (a ``RewardConfig`` or its keyword dict).
"""

from __future__ import annotations

from typing import Any


def make_reward_model(config: Any = None) -> Any:
    """``RewardModel`` from a ``RewardConfig``, a keyword dict, or the embedded defaults."""
    from aquarelle.rewards import RewardConfig, RewardModel

    if config is None or isinstance(config, RewardConfig):
        return RewardModel(config)
    return RewardModel(RewardConfig(**config))


def resolve_weights(preset: str | None = None, weights: dict | None = None) -> Any:
    """Per-episode weights (a preset, with any given terms overriding it); RewardError names what is wrong."""
    from aquarelle.rewards import resolve_weights as _resolve

    return _resolve(preset=preset, weights=weights)
