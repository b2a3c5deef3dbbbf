"""Rewards: gate, length, pairwise judge, preference, their composite and presets, and the reference pool.

Names load lazily so ``aquarelle --help`` (which imports ``rewards.cli``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Weights": "config", "PRESETS": "config", "resolve_weights": "config", "RewardConfig": "config",
    "RewardError": "config", "load_config": "config",
    "RewardResult": "composite", "RewardModel": "composite",
    "check_gate": "gate", "GateResult": "gate", "length_score": "length",
    "Verdict": "judge", "JudgeBackendError": "judge", "OpenAIJudge": "judge", "judge_against": "judge",
    "LocalJudge": "critic", "LocalPreference": "preference", "HPSv3Client": "hps_client",
    "PreferenceBackendError": "hps_client", "Pool": "pool",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
