"""The command program: a header plus a list of canonical commands.

Every stored command is in one frame: canvas pixels, (0,0) top-left, the sketch's
transforms already applied, angles in degrees, with one exception: p5.brush builds a
fill in its shape's own axes, so a filled shape under rotate/scale keeps the sketch's
own coordinates after a ``frame`` command holding the transform (``frame(1, 0, 0, 1,
0, 0)`` is the canvas again; it applies to rect, circle, polygon and the vertices of
beginShape/endShape). The JSON form round-trips:
``Program.loads(p.dumps()) == p`` and ``dumps`` of a loaded canonical text is the
same text.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .commands import SPECS, Command, CommandError, validate

FORMAT_VERSION = 1


#: the most pixels a canvas may have: what the renderers paint (a 4096 x 4096 canvas is 48 MB of RGB before the
#: masks); each side may reach 8192 (8192 x 2048), not both. Refused here, so ``check`` and the sandbox say so, not
#: only ``render`` after them
MAX_PIXELS = 4096 * 4096


class Program(BaseModel):
    """A validated, replayable p5.brush program."""

    model_config = ConfigDict(extra="forbid")  # a header typo (``sed=7``) left the seed unset without a word

    version: int = FORMAT_VERSION
    width: int = Field(600, ge=1, le=8192)
    height: int = Field(600, ge=1, le=8192)
    angle_mode: Literal["degrees"] = "degrees"  # stored angles are always degrees
    seed: int | None = None
    commands: list[Command] = []

    @model_validator(mode="after")
    def _fits(self) -> "Program":
        if self.width * self.height > MAX_PIXELS:
            raise ValueError(f"canvas {self.width}x{self.height} has more than {MAX_PIXELS} pixels (4096 x 4096)")
        return self

    # ---- building

    @classmethod
    def from_calls(cls, calls: Iterable[Any], **header: Any) -> "Program":
        """Validate raw calls (``{"method", "args"}`` dicts or (method, args) pairs)."""
        cmds = []
        for i, c in enumerate(calls):
            if isinstance(c, Command):
                cmds.append(c)
                continue
            if isinstance(c, dict):
                method, args = c.get("method"), c.get("args", [])
            elif isinstance(c, (list, tuple)) and len(c) == 2:
                method, args = c
            else:
                raise CommandError(f"call {i}: expected {{'method': ..., 'args': [...]}}, got {repr(c)[:60]}")
            cmds.append(validate(method, args))
        try:
            return cls(commands=cmds, **header)
        except ValidationError as e:  # a bad header field: one line naming it, not pydantic's report
            err = e.errors()[0]
            where = ".".join(str(x) for x in err.get("loc", ()))
            if not where:  # the whole program (``_fits``): its own words
                raise CommandError(f"program: {err['msg'].removeprefix('Value error, ')}") from None
            raise CommandError(f"program {where}: {err['msg']} (got {str(err.get('input'))[:40]})") from None

    def recorded(self) -> "Program":
        """The same program without query/no-op calls (what renderers consume)."""
        keep = [c for c in self.commands if SPECS[c.method].kind not in ("query", "noop")]
        return self.model_copy(update={"commands": keep})

    # ---- JSON

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "width": self.width,
            "height": self.height,
            "angle_mode": self.angle_mode,
            "seed": self.seed,
            "commands": [c.to_json() for c in self.commands],
        }

    def dumps(self, indent: int | None = None) -> str:
        return json.dumps(self.to_json(), indent=indent, separators=None if indent else (",", ":"))

    @classmethod
    def from_json(cls, data: dict) -> "Program":
        if not isinstance(data, dict):
            raise CommandError("program JSON must be an object with a 'commands' list")
        if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
            raise CommandError(f"program version {data.get('version')!r} is not supported (expected {FORMAT_VERSION})")
        # (angle_mode too: a program in radians is refused, where it was read as degrees)
        header = {k: data[k] for k in ("width", "height", "seed", "angle_mode") if k in data}
        cmds = data.get("commands")
        if not isinstance(cmds, list):
            raise CommandError("program JSON needs a 'commands' list")
        return cls.from_calls(cmds, **header)

    @classmethod
    def loads(cls, text: str) -> "Program":
        return cls.from_json(parse_json(text))

    # ---- summaries

    def method_counts(self) -> dict[str, int]:
        return dict(Counter(c.method for c in self.commands))

    def summary(self) -> dict:
        counts = self.method_counts()
        shapes = sum(counts.get(m, 0) for m in ("endShape", "circle", "rect", "polygon", "arc", "endStroke", "line",
                                                   "flowLine", "spline", "hatchArray", "massArray"))
        colours: set[str] = set()
        for c in self.commands:
            idx = {"fill": 0, "wash": 0, "stroke": 0, "set": 1, "hatchStyle": 1, "mass": 1}.get(c.method)
            if idx is not None and len(c.args) > idx and isinstance(c.args[idx], str):
                colours.add(c.args[idx])
        return {"commands": len(self.commands), "shapes": shapes, "colours": sorted(colours), "methods": counts,
                "size": [self.width, self.height]}


def parse_json(text: str, name: str | None = None) -> Any:
    """The JSON value of a program file's ``text``; a CommandError of one line otherwise, naming the file ``name``
    when given (``Program.loads``, and export, which unwraps a rollout's ``{"program": ...}`` before the program)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise CommandError(f"{name or 'program'} must be JSON text, got {type(text).__name__}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CommandError(f"{name or 'program'} is not valid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        why = "program JSON is nested too deeply"
    except ValueError:
        why = number_too_large(text)
    raise CommandError(f"{name}: {why}" if name else why)


def number_too_large(text: str) -> str:
    """The one line for JSON that ``json.loads`` refused with a bare ValueError: an integer past Python's 4300-digit
    limit for ``int()``, whose own message told the user to call ``sys.set_int_max_str_digits()``."""
    import re
    import sys

    m = re.search(r"\d{%d,}" % (sys.get_int_max_str_digits() + 1), text)
    if m is None:
        return "program JSON holds a number too large to read"
    line = text.count("\n", 0, m.start()) + 1
    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return f"program JSON holds a number too large ({m.end() - m.start()} digits) at line {line} column {col}"
