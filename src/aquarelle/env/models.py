"""OpenEnv wire types: one action, one observation, one state for all three modes.

The action is a union by field rather than three classes so that OpenEnv's
``GenericEnvClient`` can drive every mode with plain dicts:
``{"sketch": "..."}``, ``{"calls": [{"method": "fill", "args": ["#d7263d", 200]}]}``
or ``{"finish": true}``.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator
from pydantic_core import PydanticCustomError

Mode = Literal["sketch", "tools", "revise"]
MODES: tuple[str, ...] = ("sketch", "tools", "revise")

#: Commands one tools episode may hold (bounds the render work of a step), so also the calls in one action.
MAX_EPISODE_COMMANDS = 5_000
#: Numbers one tools episode's calls may hold in all (points, field cells, tip cells): the command count bounds
#: render work, not data, and state calls (``addField``'s 200x200 grids) are kept without a render. A session
#: holds, copies and ships its episode every step, so this bounds its memory and a step's time (five full grids).
MAX_EPISODE_VALUES = 200_000
#: The sandbox refuses sources over 256 KiB (``SandboxLimits.max_source_bytes``) with a gate 0; a sketch past
#: four times that is no model's output and is refused as a malformed action (before anything parses it).
MAX_SKETCH_CHARS = 4 * 256 * 1024
#: A method name (the longest p5.brush name has 17 characters).
MAX_METHOD_CHARS = 64


def _at_most(v: Any, kind: type, limit: int, message: str) -> Any:
    """``v`` itself, or a JSON-safe ``too_long`` error (``message`` formats ``{limit}`` and ``{n}``) when it is a
    ``kind`` longer than ``limit``: checked before pydantic validates what it holds."""
    if isinstance(v, kind) and len(v) > limit:
        raise PydanticCustomError("too_long", message, {"limit": limit, "n": len(v)})
    return v


class BrushCall(BaseModel):
    """One brush call in a tools-mode action (validated later by aquarelle.brush)."""

    model_config = ConfigDict(extra="forbid")
    method: str
    args: list[Any] = Field(default_factory=list)

    @field_validator("method", mode="before")
    @classmethod
    def _short_name(cls, v: Any) -> Any:
        return _at_most(v, str, MAX_METHOD_CHARS, "a method name has at most {limit} characters, got {n}")


class WatercolourAction(Action):
    """Exactly one of ``sketch`` (sketch/revise), ``calls`` (tools) or ``finish``."""

    sketch: str | None = Field(default=None, description="A whole p5.brush sketch (sketch and revise modes)")
    calls: list[BrushCall] | None = Field(default=None, description="Brush calls to paint now (tools mode); [] looks")
    # strict: "yes", "no" and 1 were taken as true (or false) and ended, or did not end, an episode
    finish: StrictBool = Field(default=False, description="End the episode and score the painting")

    @field_validator("sketch", mode="before")
    @classmethod
    def _bounded_sketch(cls, v: Any) -> Any:
        return _at_most(v, str, MAX_SKETCH_CHARS, "a sketch has at most {limit} characters, got {n}")

    @field_validator("calls", mode="before")
    @classmethod
    def _bounded_calls(cls, v: Any) -> Any:  # before the items are validated: a huge list costs nothing
        return _at_most(v, list, MAX_EPISODE_COMMANDS,
                        "an action has at most {limit} calls (an episode holds at most {limit}), got {n}")

    @model_validator(mode="after")
    def _one_kind(self) -> "WatercolourAction":
        given = [k for k, v in (("sketch", self.sketch is not None), ("calls", self.calls is not None),
                                ("finish", self.finish)) if v]
        if len(given) != 1:
            # PydanticCustomError, not ValueError: pydantic keeps a ValueError in errors()[i]["ctx"], which
            # OpenEnv cannot JSON-encode (the session died with SESSION_ERROR, HTTP /step gave a bare 500).
            raise PydanticCustomError("action_kind", "an action needs exactly one of 'sketch', 'calls' or 'finish'"
                                      + (f" (got {', '.join(given)})" if given else " (got none)"))
        return self


#: How the summary of the painting so far begins: the last sentences of a tools step's ``text``, the part a client
#: that caps a result's length leaves out first (``PaintingToolEnv``).
SUMMARY_LEAD = "So far "


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
    judge_position_bias: int | None = None  # of the judge's pairs (one per reference), how many flipped with the order
    judge_pairs: int | None = None
    n_calls: int = 0
    program: dict | None = None
    source: str | None = None
