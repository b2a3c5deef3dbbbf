"""Command program -> a standalone p5.brush sketch (JS) or one self-contained HTML page.

A model's painting should not be locked inside our environment: every program,
from a sketch or from tools-mode calls, exports back to plain p5.brush code in the
published skeleton (600x600-style WEBGL canvas, ``angleMode(DEGREES)``, origin
moved to the top-left), one ``brush.`` call per command in canonical arguments.
Stored commands are already in that frame, so they are written verbatim; running
the exported sketch through the sandbox gives the same program back.

Two things a program stores as data that p5.brush takes as functions are written
as JS data plus a small helper: a custom field (sampled angle grid) and a custom
brush tip (sampled alpha grid).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from .commands import FRAMED_CALLS, IDENTITY_FRAME, REQUIRED, SPECS, Command
from .program import Program

__all__ = ["to_sketch", "to_html", "js_value", "P5_VERSION", "BRUSH_VERSION"]

P5_VERSION = "2.3.4"
BRUSH_VERSION = "2.2.2"

#: What a custom brush without these parameters means here (the native renderer's defaults,
#: render/strokes.py). p5.brush itself throws without ``pressure`` and paints nothing without
#: the others, so the export spells them out; a re-imported program then lists them too.
BRUSH_DEFAULTS = {
    "scatter": 0.0,
    "sharpness": 0.5,
    "grain": 1.0,
    "opacity": 150.0,
    "spacing": 1.0,
    "pressure": {"curve": [0.15, 0.2], "min_max": [1.1, 0.9]},
}

_FIELD_HELPER = """\
// Fill p5.brush's field grid from a sampled angle grid (degrees): bilinear between the four samples around a
// cell, each angle taken the short way round (the native renderer's fields.custom_field, the same arithmetic).
function aquarelleField(grid) {
  const turn = (d) => d - 360 * Math.floor(d / 360 + 0.5);
  return function (t, field) {
    const gc = grid.length;
    for (let c = 0; c < field.length; c++) {
      const u = (c * gc) / field.length;
      const i0 = Math.min(Math.floor(u), gc - 1), i1 = Math.min(i0 + 1, gc - 1), fu = u - i0;
      const gr = grid[i0].length;
      for (let r = 0; r < field[c].length; r++) {
        const v = (r * gr) / field[c].length;
        const j0 = Math.min(Math.floor(v), gr - 1), j1 = Math.min(j0 + 1, gr - 1), fv = v - j0;
        const a00 = grid[i0][j0];
        const out = a00 + (1 - fv) * fu * turn(grid[i1][j0] - a00) + fv * (1 - fu) * turn(grid[i0][j1] - a00)
          + fu * fv * turn(grid[i1][j1] - a00);
        field[c][r] = Number.isNaN(out) ? a00 : out;
      }
    }
    return field;
  };
}
"""

_PRESSURE_HELPER = """\
// A custom pressure curve from its samples at even steps of t (0-1), read between them linearly, as the native
// renderer reads them (strokes._pressure_at).
function aquarelleCurve(samples) {
  const n = samples.length - 1;
  return function (t) {
    const u = t * n, j = Math.min(Math.floor(u), n - 1);
    return samples[j] + (u - j) * (samples[j + 1] - samples[j]);
  };
}
"""

_TIP_HELPER = """\
// Draw a sampled alpha grid (rows of 0-1) into p5.brush's 100x100 tip space: dark = opaque.
function aquarelleTip(grid) {
  return function (m) {
    const rows = grid.length, cols = grid[0].length, w = 100 / cols, h = 100 / rows;
    m.noStroke();
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        if (grid[i][j] > 0) {
          m.fill(255 * (1 - grid[i][j]));
          m.rect(-50 + j * w, -50 + i * h, w, h);
        }
      }
    }
  };
}
"""


def js_value(v: Any) -> str:
    """A JSON-compatible value as JS source: exact numbers, ints without '.0'."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"cannot export a non-finite number {v!r}")
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    if isinstance(v, str):
        return _js_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(js_value(x) for x in v) + "]"
    if isinstance(v, dict):
        parts = []
        for k, x in v.items():
            key = k if k.isidentifier() else _js_string(k)
            parts.append(f"{key}: {js_value(x)}")
        return "{" + ", ".join(parts) + "}"
    raise TypeError(f"cannot export a {type(v).__name__} value")


def _js_string(s: str) -> str:
    """A JS string literal that is safe inside an HTML <script> too: ``<`` as ``\\u003c``, so no ``</SCRIPT>`` in any
    case (a model-written brush name closed the export's script and ran its own) and no ``<!--``; U+2028/U+2029
    escaped, since the page's line handling took them for line ends inside the literal. The sandbox reads the
    escapes back to the same string, so the round trip holds."""
    return (json.dumps(s, ensure_ascii=False).replace("<", "\\u003c")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _compact_grid(grid: list) -> str:
    """A grid as JS, one row per line (no spaces: grids are the bulk of a sketch)."""
    return "[\n" + ",\n".join("  [" + ",".join(js_value(x) for x in row) + "]" for row in grid) + "\n]"


def _trimmed_args(cmd: Command) -> list:
    """Canonical args without trailing ones equal to p5.brush's own defaults."""
    spec = SPECS[cmd.method]
    args = list(cmd.args)
    while args and len(args) <= len(spec.params):
        p = spec.params[len(args) - 1]
        if p.default is REQUIRED or args[-1] != p.default or isinstance(args[-1], bool) != isinstance(p.default, bool):
            break
        args.pop()
    return args


class _Writer:
    def __init__(self) -> None:
        self.data: list[str] = []
        self.body: list[str] = []
        self.helpers: set[str] = set()
        self.frame: str | None = None  # the frame's applyMatrix, while it is not the canvas's own
        self.framed_shape = False  # inside a beginShape drawn through the frame (the canvas's back after endShape)
        self._in_shape = False  # between a beginShape/beginStroke and its end

    #: Back to the sketch's base frame, the canvas (not push()/pop(): p5.brush saves and restores its state with
    #: them, and a program records them as the sketch's own)
    CANVAS = "resetMatrix(); translate(-width / 2, -height / 2);"

    def command(self, cmd: Command) -> None:
        m, a = cmd.method, cmd.args
        if m in ("push", "pop"):
            self.body.append(f"{m}();")
            return
        if m == "frame":
            # p5's transform around each shape drawn in it, so p5.brush builds the shape in its own axes
            self.frame = None if tuple(a) == IDENTITY_FRAME else f"applyMatrix({', '.join(js_value(x) for x in a)});"
            if self.framed_shape:
                self.body.append(self.CANVAS)
                self.framed_shape = False
            if self.frame is not None and self._in_shape:
                self.body.append(self.frame)
                self.framed_shape = True
            return
        if m in ("beginShape", "beginStroke"):
            self._in_shape = True
            if self.frame is not None:
                self.body.append(self.frame)
                self.framed_shape = True
        elif m in ("endShape", "endStroke"):
            self._in_shape = False
            self._call(cmd)
            if self.framed_shape:
                self.body.append(self.CANVAS)
                self.framed_shape = False
            return
        elif m in FRAMED_CALLS and self.frame is not None:  # one call (beginShape and beginStroke are above)
            self.body.append(self.frame)
            self._call(cmd)
            self.body.append(self.CANVAS)
            return
        self._call(cmd)

    def _call(self, cmd: Command) -> None:
        m, a = cmd.method, cmd.args
        if m == "background":
            self.body.append(f"background({js_value(a[0])});")
        elif m == "addField":
            name = f"FIELD_{len(self.data)}"
            self.data.append(f"const {name} = {_compact_grid(a[1])};")
            self.helpers.add(_FIELD_HELPER)
            self.body.append(f"brush.addField({js_value(a[0])}, aquarelleField({name}));")
        elif m == "add" and isinstance(a[1], dict):
            params = dict(a[1])
            if params.get("pressure", 0) is None:  # the renderers' default pressure; p5.brush throws on a null one
                del params["pressure"]
            for k, v in BRUSH_DEFAULTS.items():
                params.setdefault(k, v)
            functions = []  # parameters p5.brush takes as functions, written from their sampled data
            pressure = params.get("pressure")
            if isinstance(pressure, dict) and "samples" in pressure:
                name = f"PRESSURE_{len(self.data)}"
                self.data.append(f"const {name} = {js_value(pressure['samples'])};")
                self.helpers.add(_PRESSURE_HELPER)
                rest = {k: v for k, v in params.pop("pressure").items() if k != "samples"}
                functions.append(f"pressure: {js_value(rest)[:-1]}{', ' if rest else ''}curve: aquarelleCurve({name})}}")
            tip = params.pop("tip", None)
            if tip is not None:
                name = f"TIP_{len(self.data)}"
                self.data.append(f"const {name} = {_compact_grid(tip)};")
                self.helpers.add(_TIP_HELPER)
                functions.append(f"tip: aquarelleTip({name})")
            if not functions:
                self.body.append(f"brush.add({js_value(a[0])}, {js_value(params)});")
                return
            opts = js_value(params)[:-1] + (", " if params else "") + ", ".join(functions) + "}"
            self.body.append(f"brush.add({js_value(a[0])}, {opts});")
        elif m in ("hatchArray", "massArray"):
            # p5.brush 2.2.2 wants Polygon objects here: plain point arrays throw inside it
            polys = ", ".join(f"new brush.Polygon({js_value(p)})" for p in a[0])
            self.body.append(f"brush.{m}([{polys}]);")
        else:
            self.body.append(f"brush.{m}({', '.join(js_value(x) for x in _trimmed_args(cmd))});")


def to_sketch(program: Program, *, seed: int | str | None = None) -> str:
    """The program as a bare p5.brush sketch in the published skeleton.

    ``seed`` (default: the program's own seed) seeds p5 and p5.brush through
    ``randomSeed``/``noiseSeed``; without one each run paints a slightly different take.
    """
    if seed is None:
        seed = program.seed
    w = _Writer()
    for cmd in program.recorded().commands:
        w.command(cmd)
    summary = program.summary()
    lines = [
        f"// p5.brush {BRUSH_VERSION} sketch exported by aquarelle: {summary['commands']} commands, "
        f"{summary['shapes']} shapes. Needs p5 {P5_VERSION} and p5.brush {BRUSH_VERSION}.",
    ]
    if not any(c.method == "background" for c in program.commands):
        # (hf10, the environment's default space, has no background: every tools-mode painting)
        lines.append("// No background(): the canvas is transparent. aquarelle renders and scores it on white paper "
                     "(a page behind it of another colour shows through).")
    for h in sorted(w.helpers):
        lines += ["", h.rstrip()]
    for d in w.data:
        lines += ["", d]
    lines += [
        "",
        "function setup() {",
        f"  createCanvas({program.width}, {program.height}, WEBGL);",
        "  angleMode(DEGREES);",
        "  noLoop();",
        "}",
        "",
        "function draw() {",
        "  translate(-width / 2, -height / 2);",
    ]
    if seed is not None:
        lines += [f"  randomSeed({js_value(seed)});", f"  noiseSeed({js_value(seed)});"]
    lines += ["  " + s for s in w.body]
    lines += ["}", ""]
    return "\n".join(lines)


_DONE_HOOK = """\
// Signal that the painting is finished (after p5.brush's own flush): for screenshots and tests.
p5.registerAddon(function (_p5, _fn, lifecycles) {
  lifecycles.postdraw = function () {
    window.aquarelleDone = true;
    document.documentElement.dataset.painted = "true";
  };
});
"""

_HTML_CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
    "img-src data: blob:; worker-src blob:"
)


def _inline_script(src: str) -> str:
    """JS made safe to sit inside <script>: no early close tag (in any case: HTML's end tag is case-blind), no
    source-map fetch. Lines are split at newlines only: ``splitlines`` also split at U+2028, U+2029 and U+0085,
    which may sit inside a string literal, and the newline it put there broke the script."""
    src = _CLOSE_SCRIPT.sub(r"<\\/\1", src).replace("<!--", "<\\!--")
    return "\n".join(line for line in src.split("\n") if not line.startswith("//# sourceMappingURL="))


_CLOSE_SCRIPT = re.compile(r"</(script)", re.IGNORECASE)


def _library_sources(node_modules: Path | None) -> tuple[str, str]:
    from aquarelle.render.browser import BRUSH_FILE, P5_FILE, find_node_modules

    nm = node_modules or find_node_modules()
    return nm.joinpath(*P5_FILE).read_text(encoding="utf-8"), nm.joinpath(*BRUSH_FILE).read_text(encoding="utf-8")


def to_html(program: Program, *, seed: int | str | None = None, title: str = "aquarelle painting",
            node_modules: Path | None = None) -> str:
    """One self-contained page (p5 and p5.brush inlined, no network) that paints the program when opened."""
    p5_src, brush_src = _library_sources(node_modules)
    sketch = to_sketch(program, seed=seed)
    esc_title = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "\n".join([
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_HTML_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc_title}</title>",
        "<style>html, body { margin: 0; min-height: 100vh; background: #e9e6df; display: flex; "
        "align-items: center; justify-content: center; } canvas { box-shadow: 0 2px 12px rgba(0,0,0,.15); "
        # white behind the canvas, as both renderers paint a program without background(): the page's colour showed
        # through a tools-mode painting's unpainted paper (and a wash's white bleed edge as white spikes)
        "background: #ffffff; }</style>",
        f"<script>\n/* p5.js {P5_VERSION} (LGPL-2.1) https://p5js.org */\n{_inline_script(p5_src)}\n</script>",
        f"<script>\n/* p5.brush {BRUSH_VERSION} (MIT) https://github.com/acamposuribe/p5.brush */\n"
        f"{_inline_script(brush_src)}\n</script>",
        f"<script>\n{_DONE_HOOK}</script>",
        f"<script>\n{_inline_script(sketch)}\n</script>",
        "</head>",
        "<body></body>",
        "</html>",
        "",
    ])
