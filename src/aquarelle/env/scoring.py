"""The reward model and per-episode weights the environment scores with (``aquarelle.rewards``).

One place builds them so the server's worker processes and the in-process
environment read the same configuration (a ``RewardConfig`` or its keyword dict).
"""

from __future__ import annotations

from typing import Any


def reward_config(config: Any = None) -> Any:
    """The ``RewardConfig`` of a ``RewardConfig``, a keyword dict, or the embedded defaults (None)."""
    from aquarelle.rewards import RewardConfig

    if isinstance(config, RewardConfig):
        return config
    return RewardConfig(**(config or {}))


def make_reward_model(config: Any = None) -> Any:
    """``RewardModel`` from a ``RewardConfig``, a keyword dict, or the embedded defaults."""
    from aquarelle.rewards import RewardModel

    return RewardModel(reward_config(config))


def resolve_weights(preset: str | None = None, weights: dict | None = None, config: Any = None) -> Any:
    """Per-episode weights: a preset's, with any given terms overriding them. Weights without a preset override
    the weights ``config`` (the scorer's configuration) scores an episode that gives none with (docs/config.md:
    the terms given override the configured preset's); they were filled from judge-led. RewardError names what is
    wrong."""
    from aquarelle.rewards import resolve_weights as _resolve

    return _resolve(preset=preset, weights=weights, base=reward_config(config).weights_resolved())


def server_reward_config(path: Any = None) -> Any:
    """The ``RewardConfig`` an environment server scores with: the file ``path`` read as ``aquarelle score
    --config`` reads it (None: the embedded defaults). A backend it weighs that has no URL is refused too, as
    ``train`` refuses it: on a server it made every reward None, found only once episodes were scored. So is a
    judge whose pool is missing (a mistyped ``AQUARELLE_POOL``), with or without a file.
    A bad file raises ``RewardError``, one line naming it."""
    from aquarelle.rewards.config import check_services, load_config

    cfg = load_config(path)
    check_services(cfg, path)
    return cfg
