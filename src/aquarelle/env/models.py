"""OpenEnv wire types: one action, one observation, one state for all three modes.

The action is a union by field rather than three classes so that OpenEnv's
``GenericEnvClient`` can drive every mode with plain dicts:
``{"sketch": "..."}``, ``{"calls": [{"method": "fill", "args": ["#d7263d", 200]}]}``
or ``{"finish": true}``.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, ConfigDict, Field, model_validator

Mode = Literal["sketch", "tools", "revise"]
MODES: tuple[str, ...] = ("sketch", "tools", "revise")


class BrushCall(BaseModel):
    """One brush call in a tools-mode action (validated later by aquarelle.brush)."""

    model_config = ConfigDict(extra="forbid")
    method: str
    args: list[Any] = Field(default_factory=list)


class WatercolourAction(Action):
    """Exactly one of ``sketch`` (sketch/revise), ``calls`` (tools) or ``finish``."""

    sketch: str | None = Field(default=None, description="A whole p5.brush sketch (sketch and revise modes)")
    calls: list[BrushCall] | None = Field(default=None, description="Brush calls to paint now (tools mode); [] looks")
    finish: bool = Field(default=False, description="End the episode and score the painting")

    @model_validator(mode="after")
    def _one_kind(self) -> "WatercolourAction":
        given = [k for k, v in (("sketch", self.sketch is not None), ("calls", self.calls is not None),
                                ("finish", self.finish)) if v]
        if len(given) != 1:
            raise ValueError("an action needs exactly one of 'sketch', 'calls' or 'finish'"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self


class WatercolourObservation(Observation):
    """What the policy sees after reset or a step (``reward`` and ``done`` come from Observation)."""

    text: str = ""
    coverage: float = 0.0
    errors: list[str] = Field(default_factory=list)
    breakdown: dict[str, float | None] = Field(default_factory=dict)
    image_png_b64: str | None = None


class WatercolourState(State):
    """The episode as the server holds it (``/state`` and the WebSocket ``state`` message)."""

    mode: str = "tools"
    prompt: str = ""
    action_space: str = "hf10"
    seed: int = 0
    max_steps: int = 0
    steps_left: int = 0
    revisions_left: int = 0
    done: bool = False
    coverage: float = 0.0
    reward: float | None = None
    breakdown: dict[str, float | None] = Field(default_factory=dict)
    weights: dict[str, float] = Field(default_factory=dict)
    n_calls: int = 0
    program: dict | None = None
    source: str | None = None
