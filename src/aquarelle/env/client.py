"""``WatercolourEnv``: the typed OpenEnv client (one WebSocket session per instance).

``GenericEnvClient`` works too with plain dicts; this adds typed actions and
observations. Sync use: ``with WatercolourEnv(base_url=url).sync() as env: ...``.
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from .models import WatercolourAction, WatercolourObservation, WatercolourState


class WatercolourEnv(EnvClient[WatercolourAction, WatercolourObservation, WatercolourState]):
    """Typed client for the aquarelle server; actions may also be plain dicts."""

    def _step_payload(self, action: WatercolourAction | dict) -> dict[str, Any]:
        if isinstance(action, dict):
            action = WatercolourAction(**action)  # validate here: a clear error before the wire
        return action.model_dump(exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[WatercolourObservation]:
        obs = dict(payload.get("observation") or {})
        obs["reward"] = payload.get("reward")
        obs["done"] = bool(payload.get("done", False))
        if "metadata" in payload and not obs.get("metadata"):
            obs["metadata"] = payload["metadata"]
        observation = WatercolourObservation(**obs)
        return StepResult(observation=observation, reward=observation.reward, done=observation.done)

    def _parse_state(self, payload: dict[str, Any]) -> WatercolourState:
        return WatercolourState(**payload)
