"""What p5.brush carries between calls, so a program can be replayed call by call.

``PaintState.apply(cmd)`` updates the state the way p5.brush 2.2.2 does (a fill
stays on until ``noFill``; ``set`` picks brush, colour and weight; ``vertex``
only inside ``beginShape``...) and returns a ``DrawOp`` when the call paints:
the command plus a frozen snapshot of the state it paints with. Errors p5.brush
would throw (``vertex`` outside a shape, a line with no brush colour, an unknown
brush or field) raise ``CommandError`` with p5.brush's meaning in one line.
Renderers consume DrawOps; the environment uses the same state for its text.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dfield
from typing import Any

from .commands import BUILTIN_BRUSHES, BUILTIN_FIELDS, IDENTITY_FRAME, MAX_COORD, Command, CommandError


@dataclass
class FillState:
    active: bool = False
    color: str | None = None
    opacity: float = 150
    bleed: float = 0.07
    direction: str = "out"
    angle: float | None = None
    texture: float = 0.8
    border: float = 0.5
    scatter: bool = True


@dataclass
class WashState:
    active: bool = False
    color: str | None = None
    opacity: float = 150


@dataclass
class StrokeState:
    active: bool = False
    brush: str = "HB"
    color: str | None = None
    weight: float = 1


@dataclass
class HatchState:
    active: bool = False
    dist: float = 5
    angle: float = 45
    options: dict = dfield(default_factory=dict)
    style: tuple[str, str, float] | None = None  # (brush, colour, weight) from hatchStyle


@dataclass
class MassState:
    active: bool = False
    brush: str | None = None
    color: str | None = None
    options: dict = dfield(default_factory=dict)


@dataclass
class FieldState:
    active: bool = False
    name: str | None = None
    wiggle: float = 1
    t: float = 0


@dataclass
class ShapeInProgress:
    curvature: float
    vertices: list[list[float]] = dfield(default_factory=list)


@dataclass
class StrokeInProgress:
    type: str
    x: float
    y: float
    segments: list[list[float]] = dfield(default_factory=list)  # [angle, length, pressure]


@dataclass(frozen=True)
class DrawOp:
    """A painting call with the state it paints with (a snapshot; safe to keep)."""

    command: Command
    state: "PaintState"
    geometry: dict


def _shallow(obj):
    """``copy.copy`` of a plain dataclass instance, without the pickle protocol it goes through (a snapshot is
    taken per painting call, twice per render: the budget check replays the state too)."""
    new = object.__new__(obj.__class__)
    new.__dict__.update(obj.__dict__)
    return new


@dataclass
class PaintState:
    fill: FillState = dfield(default_factory=FillState)
    wash: WashState = dfield(default_factory=WashState)
    stroke: StrokeState = dfield(default_factory=StrokeState)
    hatch: HatchState = dfield(default_factory=HatchState)
    mass: MassState = dfield(default_factory=MassState)
    flow: FieldState = dfield(default_factory=FieldState)
    clip: list[float] | None = None
    brush_scale: float = 1.0
    seed: Any = None
    noise_seed: Any = None
    brushes: dict[str, dict] = dfield(default_factory=dict)  # custom brushes from add()
    #: ``brush_scale`` when each custom brush was added: p5.brush's scaleBrushes scales the brushes that exist
    #: when it is called, so a brush added after it keeps its own size
    added_at_scale: dict[str, float] = dfield(default_factory=dict)
    fields: dict[str, list] = dfield(default_factory=dict)  # custom fields from addField()
    #: whether p5.brush has made its built-in fields yet (its ``isFieldReady``: at the first field call, line or
    #: shape that paints); an ``addField`` of a built-in name before that is overwritten when they are made
    fields_made: bool = False
    #: the frame a shape's coordinates are in (``frame``: a, b, c, d, e, f), None for the canvas's own
    frame: tuple | None = None
    #: what each ``push`` saved (p5.brush's ``save.js``: fill, wash, stroke, hatch, mass, field)
    stack: list = dfield(default_factory=list)
    shape: ShapeInProgress | None = None
    path: StrokeInProgress | None = None
    background: str | None = None

    # ---------------------------------------------------------------- queries

    def known_brush(self, name: str) -> bool:
        return name in BUILTIN_BRUSHES or name in self.brushes

    def scale_of(self, name: str) -> float:
        """How much ``scaleBrushes`` has scaled brush ``name``: every call for a built-in one, the calls since its
        ``add`` for a custom one."""
        return self.brush_scale / self.added_at_scale[name] if name in self.brushes else self.brush_scale

    def known_field(self, name: str) -> bool:
        return name in BUILTIN_FIELDS or name in self.fields

    def snapshot(self) -> "PaintState":
        s = _shallow(self)
        s.fill = _shallow(self.fill)
        s.wash = _shallow(self.wash)
        s.stroke = _shallow(self.stroke)
        s.hatch = _shallow(self.hatch)
        s.mass = _shallow(self.mass)
        s.flow = _shallow(self.flow)
        s.shape = None
        s.path = None
        return s

    def _brush(self, method: str, name: str) -> None:
        if not self.known_brush(name):
            avail = ", ".join(list(BUILTIN_BRUSHES) + list(self.brushes))
            raise CommandError(f'{method}: brush "{name}" not found (available: {avail})')

    def _empty_curve(self, method: str, points: int, curvature: float) -> None:
        """p5.brush curves an open path through each point between two others, so two points with curvature > 0
        make an empty path: its fill throws ("Cannot read properties of undefined") and its stroke paints nothing
        and loses the stroke drawn after it. Refused whenever a fill or stroke would paint it."""
        if points == 2 and curvature > 0 and ((self.fill.active and self.fill.color)
                                              or (self.stroke.active and self.stroke.color)):
            raise CommandError(f"{method}: 2 points with curvature {curvature:g} make an empty path in p5.brush "
                               "(its fill throws, its stroke loses the next one); give 3 or more points or "
                               "curvature 0")

    def paints(self) -> bool:
        """Whether a shape drawn now paints something (and so, in p5.brush, makes the built-in fields first)."""
        return self.fill.active or self.wash.active or self.stroke.active or self.hatch.active or self.mass.active

    def _op(self, cmd: Command, **geometry: Any) -> DrawOp:
        return DrawOp(cmd, self.snapshot(), geometry)

    # ---------------------------------------------------------------- replay

    def apply(self, cmd: Command) -> DrawOp | None:  # noqa: C901 - one branch per method is the clearest form
        m, a = cmd.method, cmd.args
        if m in _MAKES_FIELDS or (m in _SHAPES and self.paints()):
            self.fields_made = True
        if m in ("instance", "load", "wRand", "listFields", "box"):
            return None
        if m == "background":
            self.background = a[0]
            return self._op(cmd)
        if m == "scaleBrushes":  # compounds, as in p5.brush; bounded in all as one call is (past it no stamp fits)
            scale = self.brush_scale * a[0]
            if not scale <= MAX_COORD:
                raise CommandError(f"scaleBrushes: brushes scaled {scale:g} times in all (at most {MAX_COORD:g})")
            self.brush_scale = scale
        elif m == "push":
            if len(self.stack) >= MAX_PUSH_DEPTH:
                raise CommandError(f"push: more than {MAX_PUSH_DEPTH} pushes without a pop (each saves the brush state)")
            self.stack.append((_shallow(self.fill), _shallow(self.wash), _shallow(self.stroke), _shallow(self.hatch),
                               _shallow(self.mass), _shallow(self.flow)))
        elif m == "pop":
            if self.stack:  # p5.brush's pop() without a push restores nothing
                t = self.flow.t  # a refreshed field stays refreshed: p5.brush regenerates it in place
                self.fill, self.wash, self.stroke, self.hatch, self.mass, self.flow = self.stack.pop()
                self.flow.t = t
        elif m == "frame":
            self.frame = None if tuple(a) == IDENTITY_FRAME else tuple(a)
        elif m == "seed":
            self.seed = a[0]
        elif m == "noiseSeed":
            self.noise_seed = a[0]
        elif m == "field":
            if not self.known_field(a[0]):
                avail = ", ".join(list(BUILTIN_FIELDS) + list(self.fields))
                raise CommandError(f'field: field "{a[0]}" does not exist (available: {avail})')
            self.flow.active, self.flow.name = True, a[0]
        elif m == "noField":
            self.flow.active = False
        elif m == "addField":
            if a[0] in BUILTIN_FIELDS and not self.fields_made:
                # p5.brush adds its seven built-in fields lazily, by name, over whatever is there: a custom
                # "waves" added before then is lost, and field("waves") flows along the built-in one
                self.fields.pop(a[0], None)
            else:
                self.fields[a[0]] = a[1]
        elif m == "refreshField":
            if not self.flow.active:
                raise CommandError("refreshField: no field is active (call field(name) first)")
            self.flow.t = a[0]
        elif m == "wiggle":
            self.flow.active, self.flow.name, self.flow.wiggle = True, "hand", a[0]
        elif m == "add":
            self.brushes[a[0]] = a[1]
            self.added_at_scale[a[0]] = self.brush_scale
        elif m == "clip":
            self.clip = list(a[0])
        elif m == "noClip":
            self.clip = None
        elif m == "set":
            self._brush("set", a[0])
            self.stroke = StrokeState(True, a[0], a[1], a[2])
        elif m == "pick":
            self._brush("pick", a[0])
            self.stroke.brush = a[0]
        elif m == "stroke":
            self.stroke.color, self.stroke.active = a[0], True
        elif m == "strokeWeight":
            self.stroke.weight = a[0]
        elif m == "noStroke":
            self.stroke.active = False
        elif m == "fill":
            self.fill.color, self.fill.opacity, self.fill.active = a[0], a[1], True
        elif m == "noFill":
            self.fill.active = False
        elif m == "fillBleed":
            self.fill.bleed, self.fill.direction, self.fill.angle = a[0], a[1], a[2]
        elif m == "fillTexture":
            self.fill.texture, self.fill.border, self.fill.scatter = a[0], a[1], a[2]
        elif m == "wash":
            self.wash = WashState(True, a[0], a[1])
        elif m == "noWash":
            self.wash.active = False
        elif m == "hatch":
            self.hatch.active, self.hatch.dist, self.hatch.angle, self.hatch.options = True, a[0], a[1], dict(a[2])
        elif m == "hatchStyle":
            self._brush("hatchStyle", a[0])
            self.hatch.style = (a[0], a[1], a[2])
        elif m == "noHatch":
            self.hatch.active, self.hatch.style = False, None
        elif m == "mass":
            self._brush("mass", a[0])
            self.mass = MassState(True, a[0], a[1], dict(a[2]))
        elif m == "noMass":
            self.mass = MassState()
        elif m in ("hatchArray", "massArray"):
            if m == "massArray" and not self.mass.active:  # p5.brush: set(null, ...) throws 'Brush "null" not found'
                raise CommandError("massArray: no mass set (call mass(brush, color) first)")
            return self._op(cmd, polygons=a[0])
        elif m in ("line", "flowLine"):
            if not self.stroke.active or not self.stroke.color:
                raise CommandError(f"{m}: no brush or colour set (call set(brush, color) or stroke(color) first)")
            return self._op(cmd)
        elif m == "beginShape":
            self.shape = ShapeInProgress(a[0])
        elif m == "vertex":
            if self.shape is None:
                raise CommandError("vertex: called outside beginShape()/endShape() (call beginShape() first)")
            if len(self.shape.vertices) >= 10_000:
                raise CommandError("vertex: a shape may have at most 10000 vertices")
            self.shape.vertices.append(list(a))
        elif m == "endShape":
            if self.shape is None:
                raise CommandError("endShape: called without beginShape() (call beginShape() first)")
            shape, self.shape = self.shape, None
            if len(shape.vertices) < 2:
                raise CommandError(f"endShape: needs at least 2 vertices, got {len(shape.vertices)}")
            if not a[0]:
                self._empty_curve("endShape", len(shape.vertices), shape.curvature)
            return self._op(cmd, vertices=shape.vertices, curvature=shape.curvature, closed=bool(a[0]))
        elif m == "beginStroke":
            self.path = StrokeInProgress(a[0], a[1], a[2])
        elif m == "move":
            if self.path is None:
                raise CommandError("move: called without beginStroke() (call beginStroke() first)")
            self.path.segments.append(list(a))
        elif m == "endStroke":
            if self.path is None:
                raise CommandError("endStroke: called without beginStroke() (call beginStroke() first)")
            path, self.path = self.path, None
            return self._op(cmd, type=path.type, x=path.x, y=path.y, segments=path.segments)
        elif m == "spline":
            if len(a[0]) < 2:
                raise CommandError(f"spline: needs at least 2 points, got {len(a[0])}")
            self._empty_curve("spline", len(a[0]), a[1])
            return self._op(cmd)
        elif m == "polygon":
            if len(a[0]) < 3:
                raise CommandError(f"polygon: needs at least 3 points, got {len(a[0])}")
            return self._op(cmd)
        elif m in ("rect", "circle", "arc"):
            return self._op(cmd)
        else:  # pragma: no cover - SPECS and this table are kept in step by tests
            raise CommandError(f"{m}: not handled by the state model")
        return None


#: How deep push() may nest: each saves the brush state, and a loop that pushes without popping would keep 200,000
#: copies (the command limit) in every replay of the program.
MAX_PUSH_DEPTH = 10_000

#: p5.brush calls that make its built-in fields (``isFieldReady``) whatever the state; the shapes do when they paint
_MAKES_FIELDS = frozenset({"field", "noField", "wiggle", "line", "flowLine", "push"})
_SHAPES = frozenset({"rect", "circle", "arc", "endShape", "spline", "polygon", "endStroke", "hatchArray", "massArray"})


def replay(commands: list[Command], state: PaintState | None = None) -> tuple[PaintState, list[DrawOp]]:
    """Apply every command; return the final state and the painting ops in order."""
    st = state or PaintState()
    ops = []
    for c in commands:
        op = st.apply(c)
        if op is not None:
            ops.append(op)
    return st, ops
