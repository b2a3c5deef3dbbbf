"""The command program: typed p5.brush calls, action spaces, state replay, sandboxed sketches."""

from .action_space import HF10, SPACES, ActionSpace, get_space
from .commands import BRUSH_METHODS, SPECS, Command, CommandError, validate
from .program import Program
from .state import DrawOp, PaintState, replay

__all__ = [
    "HF10", "SPACES", "ActionSpace", "get_space", "BRUSH_METHODS", "SPECS", "Command", "CommandError",
    "validate", "Program", "DrawOp", "PaintState", "replay",
]
