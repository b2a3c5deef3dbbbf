"""Named allowlists of brush methods (the policy's action space).

The published run advised ten methods in its prompt but never enforced them;
here a call outside the episode's space is an error naming the method and space.
"""

from __future__ import annotations

from dataclasses import dataclass

from .commands import BRUSH_METHODS, SPECS, CommandError
from .text import clip, short_repr

HF10 = (
    "scaleBrushes",
    "noStroke",
    "fill",
    "noFill",
    "fillBleed",
    "fillTexture",
    "beginShape",
    "vertex",
    "endShape",
    "circle",
)


#: In every space: p5's ``background`` (part of the skeleton), the seeding calls p5's ``randomSeed`` and
#: ``noiseSeed`` amount to (p5.brush's p5 add-on reseeds p5.brush from them), p5's ``push``/``pop`` (which save and
#: restore p5.brush's state) and ``frame`` (p5's transform at a shape or stroke, which the sandbox records); none of
#: them paints a shape. The environment refuses ``frame`` as a tool call: a tool's coordinates are the canvas's.
ALWAYS = frozenset({"background", "seed", "noiseSeed", "frame", "push", "pop"})


@dataclass(frozen=True)
class ActionSpace:
    name: str
    methods: frozenset[str]

    def check(self, method: str) -> None:
        """Raise CommandError if ``method`` is not allowed in this space."""
        if method in ALWAYS:
            return
        if method not in self.methods:
            known = "" if method in SPECS else " (and it is not a p5.brush method)"
            raise CommandError(f"{clip(str(method))} is not in the {self.name} action space{known}")

    def __contains__(self, method: str) -> bool:
        return method in ALWAYS or method in self.methods

    def violations(self, commands) -> list[str]:
        """A program's methods outside this space, as the sandbox words a sketch's (``check`` and ``score`` of a
        program JSON, which never ran in the sandbox)."""
        bad = sorted({c.method for c in commands if c.method not in self})
        return [f"brush.{m}() is not in the {self.name} action space" for m in bad]


SPACES: dict[str, ActionSpace] = {
    "hf10": ActionSpace("hf10", frozenset(HF10)),
    "full": ActionSpace("full", frozenset(BRUSH_METHODS)),
}


def get_space(spec: str | list[str] | tuple[str, ...] | ActionSpace | None, default: str = "full") -> ActionSpace:
    """Resolve a space by name, or build a custom one from a list of method names."""
    if spec is None:
        spec = default
    if isinstance(spec, ActionSpace):
        return spec
    if isinstance(spec, str):
        if spec in SPACES:
            return SPACES[spec]
        if "," in spec:
            spec = [s.strip() for s in spec.split(",") if s.strip()]
        else:
            raise CommandError(f"unknown action space {short_repr(spec)} (known: {', '.join(SPACES)}, "
                               "or a comma-separated list)")
    if not isinstance(spec, (list, tuple, set, frozenset)):
        raise CommandError(f"action space must be a name, a list of method names or an ActionSpace, got "
                           f"{short_repr(spec)}")
    methods = list(spec)
    unknown = [m for m in methods if not isinstance(m, str) or m not in BRUSH_METHODS]
    if unknown:
        raise CommandError(f"custom action space names unknown method(s): {clip(', '.join(map(str, unknown)))}")
    return ActionSpace("custom[" + ",".join(methods) + "]", frozenset(methods))
