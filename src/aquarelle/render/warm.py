"""Warm the native renderer: one small program that reaches every compiled kernel.

numba loads (or compiles) a kernel on its first call, so the first painting that
hatches, masses or strokes with a new brush paid tens to hundreds of ms that are
not its own (``hatching``'s first render took 376 ms, its next 17 ms). The render
CLI's ``ms`` excludes first-call warm-up and an env server's first steps should
not be slow, so both render this program once before their first job: every
primitive, every built-in brush, a custom brush and a custom field, hatch, mass,
wash, textured and scattered fills, on a small canvas (the kernels' types, not
the size, decide what loads).
"""

from __future__ import annotations

import time

# the built-in brushes (pencil-type discs, spray dots and marker dabs; a custom ``add`` brush below stamps image
# tips) and fields
from ..brush.commands import BUILTIN_BRUSHES as BRUSHES, BUILTIN_FIELDS as FIELDS

SIZE = 128


def warm_calls() -> list[tuple[str, list]]:
    """The warm-up program's calls (canvas ``SIZE`` square)."""
    square = [[20, 20], [100, 24], [96, 100], [24, 96]]
    tip = [[1.0 if (i - 3.5) ** 2 + (j - 3.5) ** 2 < 10 else 0.0 for j in range(8)] for i in range(8)]
    calls: list[tuple[str, list]] = [("background", ["#fffceb"]), ("scaleBrushes", [1.2]), ("seed", [1])]
    for i, name in enumerate(BRUSHES):
        calls += [("set", [name, "#3d405b", 1 + i % 4]), ("line", [10, 8 + 10 * i, 118, 12 + 10 * i])]
    calls += [("set", ["marker", "#ff0000", 12]), ("line", [10, 60, 118, 64])]
    for name in FIELDS:
        calls += [("field", [name]), ("flowLine", [20, 40, 60, 0])]
    calls += [("noField", []), ("addField", ["down", [[90.0] * 200 for _ in range(200)]]), ("field", ["down"]),
              ("flowLine", [64, 10, 50, 0]), ("refreshField", [1]), ("wiggle", [1]), ("noField", [])]
    calls += [("add", ["blob", {"type": "custom", "weight": 6, "scatter": 0.5, "opacity": 60, "spacing": 1,
                                "tip": tip, "pressure": [1, 1]}]),
              ("set", ["blob", "#8a2be2", 1]), ("line", [20, 100, 100, 100]),
              ("set", ["HB", "#202020", 1.5]),
              ("spline", [[[10, 110], [60, 70], [110, 110]], 0.6]),
              ("arc", [64, 64, 30, 30, 300]),
              ("beginStroke", ["curve", 20, 30]), ("move", [10, 60, 1.2]), ("endStroke", [0, 1]),
              ("fill", ["#d7263d", 150]), ("fillBleed", [0.3, "out"]), ("fillTexture", [0.6, 0.5, True]),
              ("circle", [64, 64, 30, 0.5]),
              ("beginShape", [0.5]), ("vertex", [20, 20]), ("vertex", [100, 30]), ("vertex", [80, 100]),
              ("endShape", [True]),
              ("noStroke", []), ("fillTexture", [0, 0]), ("rect", [30, 30, 60, 40]),
              ("noFill", []), ("wash", ["#577590", 90]), ("polygon", [square]), ("noWash", []),
              ("hatch", [5, 45, {"rand": 0.3}]), ("hatchStyle", ["charcoal", "#2a261f", 1]),
              ("rect", [20, 20, 80, 80]), ("hatchArray", [[square]]), ("noHatch", []),
              ("mass", ["cpencil", "#f3722c", {"precision": 2, "strength": 1}]), ("polygon", [square]),
              ("massArray", [[square]]), ("noMass", [])]
    return calls


def warm_up() -> float:
    """Render the warm-up program once; returns the seconds it took."""
    from ..brush.program import Program
    from .native import render

    t0 = time.perf_counter()
    render(Program.from_calls(warm_calls(), width=SIZE, height=SIZE))
    return time.perf_counter() - t0


if __name__ == "__main__":  # `make setup` and the Docker build: compile now, not in a first job's time
    print(f"native renderer kernels ready in {warm_up():.1f} s")
