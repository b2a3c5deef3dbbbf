"""Program -> standalone sketch / HTML, the `aquarelle export` command, and the sandbox round trip."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from aquarelle.brush.commands import CommandError
from aquarelle.brush.export import js_value, to_html, to_sketch
from aquarelle.brush.export_cli import format_for
from aquarelle.brush.program import Program
from aquarelle.cli import app

#: grids shaped as the sandbox samples them (50x50 field, 32x32 tip, 3 decimals), so they round-trip exactly
FIELD = [[round(30 * ((c * 7 + r * 3) % 11) / 11 - 15.5, 3) for r in range(50)] for c in range(50)]
TIP = [[round(max(0.0, 1 - ((i - 15.5) ** 2 + (j - 15.5) ** 2) / 256), 3) for i in range(32)] for j in range(32)]

#: a program touching every argument shape the exporter writes
CALLS = [
    ("background", ["#fffceb"]),
    ("seed", ["abc"]),
    ("scaleBrushes", [1.5]),
    ("noStroke", []),
    ("fill", ["#d7263d", 120]),
    ("fillBleed", [0.3, "in", 45]),
    ("fillTexture", [0.5, 0.25, False]),
    ("circle", [300.25, 300, 150, 0.5]),
    ("fill", ["#1f4b99"]),
    ("fillBleed", [0.1]),
    ("beginShape", [0.3]),
    ("vertex", [100, 100]),
    ("vertex", [500, 120, 0.5]),
    ("vertex", [450, 400]),
    ("endShape", [True]),
    ("noFill", []),
    ("wash", ["#88aa00", 60]),
    ("rect", [10, 20, 30, 40, "center"]),
    ("noWash", []),
    ("set", ["HB", "#222222", 1.2]),
    ("hatch", [6, 30, {"rand": 0.1, "continuous": True}]),
    ("hatchStyle", ["2B", "#333333", 1]),
    ("polygon", [[[10, 10], [60, 10], [35, 50]]]),
    ("noHatch", []),
    ("mass", ["cpencil", "#445566", {"precision": 2}]),
    ("massArray", [[[[100, 100], [200, 100], [150, 180]]]]),
    ("noMass", []),
    ("spline", [[[10, 500], [200, 450, 0.8], [400, 520]], 0.7]),
    ("arc", [300, 300, 100, 0, 120]),
    ("beginStroke", ["curve", 50, 50]),
    ("move", [30, 100, 0.9]),
    ("move", [-20, 60]),
    ("endStroke", [10, 1.1]),
    ("clip", [[0, 0, 300, 300]]),
    ("line", [0, 0, 600, 600]),
    ("noClip", []),
    ("addField", ["diag", FIELD]),
    ("field", ["diag"]),
    ("refreshField", [0]),
    ("flowLine", [100, 500, 300, 15]),
    ("noField", []),
    ("wiggle", [2]),
    ("noField", []),
    (
        "add",
        [
            "sq",
            {
                "type": "custom",
                "weight": 10,
                "scatter": 0.1,
                "sharpness": 0.5,
                "grain": 1,
                "opacity": 200,
                "spacing": 1,
                "pressure": [1.2, 0.9],
                "rotate": "natural",
                "markerTip": False,
                "tip": TIP,
            },
        ],
    ),
    ("add", ["soft", {"type": "default", "weight": 2, "scatter": 0.3, "sharpness": 0.4, "grain": 2, "opacity": 90,
                      "spacing": 0.2, "pressure": {"curve": [0.1, 0.2], "min_max": [1.1, 0.9]}}]),
    ("pick", ["sq"]),
    ("stroke", ["#00aa55"]),
    ("strokeWeight", [2]),
    ("line", [50, 50, 550, 80]),
]


def _program(**kw) -> Program:
    return Program.from_calls(CALLS, **kw)


def _draw_body(js: str) -> list[str]:
    body = js.split("function draw() {", 1)[1].rsplit("}", 1)[0]
    return [ln.strip() for ln in body.strip().splitlines()]


def test_sketch_is_the_published_skeleton_with_one_brush_call_per_command():
    p = _program(width=640, height=480, seed=7)
    js = to_sketch(p)
    assert "createCanvas(640, 480, WEBGL);" in js and "angleMode(DEGREES);" in js and "noLoop();" in js
    body = _draw_body(js)
    assert body[:3] == ["translate(-width / 2, -height / 2);", "randomSeed(7);", "noiseSeed(7);"]
    calls = body[3:]
    assert len(calls) == len(p.recorded().commands)
    assert calls[0] == 'background("#fffceb");'
    for line, cmd in zip(calls[1:], p.recorded().commands[1:]):
        assert line.startswith(f"brush.{cmd.method}("), (line, cmd)
    # canonical args, trailing defaults left to p5.brush
    assert 'brush.fill("#1f4b99");' in calls and 'brush.fill("#d7263d", 120);' in calls
    assert 'brush.fillBleed(0.3, "in", 45);' in calls and "brush.fillBleed(0.1);" in calls
    assert "brush.fillTexture(0.5, 0.25, false);" in calls
    assert "brush.circle(300.25, 300, 150, 0.5);" in calls
    assert "brush.endShape(true);" in calls and "brush.vertex(500, 120, 0.5);" in calls
    assert 'brush.hatch(6, 30, {rand: 0.1, continuous: true});' in calls
    assert 'brush.rect(10, 20, 30, 40, "center");' in calls
    assert 'brush.seed("abc");' in calls
    # p5.brush 2.2.2's massArray/hatchArray throw on plain point arrays: they get Polygon objects
    assert "brush.massArray([new brush.Polygon([[100, 100], [200, 100], [150, 180]])]);" in calls


def test_no_seed_means_no_seeding_and_an_explicit_seed_wins():
    assert "randomSeed" not in to_sketch(_program())
    assert "randomSeed(5);" in to_sketch(_program(seed=9), seed=5)


def test_numbers_are_exact():
    for x in (0.1, 1 / 3, 1e-05, -12.125, 123456.789, 2.5e-12):
        assert float(js_value(x)) == x
    assert js_value(3.0) == "3" and js_value(True) == "true" and js_value(None) == "null"
    assert js_value({"min_max": [1, 2], "a-b": "x"}) == '{min_max: [1, 2], "a-b": "x"}'


def test_custom_field_and_tip_become_data_and_a_helper():
    js = to_sketch(_program())
    assert "function aquarelleField(grid)" in js and "function aquarelleTip(grid)" in js
    assert re.search(r'brush\.addField\("diag", aquarelleField\(FIELD_\d+\)\);', js)
    assert re.search(r'brush\.add\("sq", \{type: "custom", .*tip: aquarelleTip\(TIP_\d+\)\}\);', js)
    assert "[" + ",".join(js_value(x) for x in FIELD[3]) + "]" in js
    assert "[" + ",".join(js_value(x) for x in TIP[16]) + "]" in js


def test_helpers_fill_p5brush_grids_as_sampled():
    """Run the exported helpers in V8 against grids shaped like p5.brush's."""
    from py_mini_racer import MiniRacer

    small = Program.from_calls([
        ("addField", ["f", [[45.5, -10.125, 0], [1e-05, 3, 4]]]),
        ("add", ["t", {"type": "custom", "weight": 5, "tip": [[0, 1, 0], [1, 0.5, 1]]}]),
    ])
    prelude = to_sketch(small).split("function setup()", 1)[0]
    with MiniRacer() as ctx:
        ctx.eval(prelude)
        # a 2 x 3 sample spread over a 4 x 6 field: the kept cells exact, bilinear between them
        field = json.loads(ctx.eval(
            "JSON.stringify(aquarelleField(FIELD_0)(0, Array.from({length: 4}, () => new Array(6).fill(0))))"
        ))
        assert field[0] == [45.5, 45.5 - 55.625 / 2, -10.125, -10.125 + 10.125 / 2, 0, 0]
        assert field[2][0] == 1e-05 and field[1][0] == 45.5 + (1e-05 - 45.5) / 2
        # on p5.brush's Float32Array grid, the same values as the native renderer's (angles that wrap, a NaN)
        rng = np.random.default_rng(3)
        grid = (rng.uniform(-400, 400, (7, 5)) + np.arange(5) * 170).round(3)
        grid[2, 3] = np.nan
        ctx.eval("const G = " + json.dumps(grid.tolist()) + ";")  # json writes NaN, as JS reads it
        got = np.array(json.loads(ctx.eval(
            "JSON.stringify(aquarelleField(G)(0, Array.from({length: 13}, () => new Float32Array(11))).map("
            "(col) => Array.from(col, (v) => (Number.isNaN(v) ? null : v))))")), dtype=float)
        # the tip: each non-zero cell drawn dark in the 100x100 space
        rects = json.loads(ctx.eval(
            "const out = []; const m = {noStroke() {}, fill(g) { this.g = g; }, rect(x, y, w, h) { out.push([this.g, x, y, w, h]); }};"
            " aquarelleTip(TIP_1)(m); JSON.stringify(out)"
        ))
    assert len(rects) == 4
    assert [0, -50 + 100 / 3, -50, 100 / 3, 50] in rects  # alpha 1 -> black, top-middle cell
    assert any(r[0] == 127.5 and r[2] == 0 for r in rects)  # alpha 0.5 -> mid grey, bottom row
    from aquarelle.render.fields import custom_field

    want = custom_field(grid.tolist(), 13, 11)
    # NaN only in the cells whose first sample is the NaN one (2 columns x 2 rows here), not in their neighbours'
    assert np.array_equal(got, want, equal_nan=True)
    assert np.argwhere(np.isnan(want)).tolist() == [[4, 7], [4, 8], [5, 7], [5, 8]]


def test_a_sampled_pressure_curve_exports_as_a_function_that_reads_it_as_the_renderer_does():
    """p5.brush calls a custom pressure's curve as a function: a program's samples go out as ``aquarelleCurve``,
    which reads between them linearly as the native renderer does, and the exported sketch makes the program."""
    from py_mini_racer import MiniRacer

    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.render.strokes import _pressure_at

    samples = [0.2, 0.9, 0.4, 1.0, 0.0]
    program = Program.from_calls([
        ("add", ["ink", {"weight": 3, "scatter": 0.5, "opacity": 90, "sharpness": 0.5,
                         "pressure": {"type": "custom", "min_max": [0.4, 1.6], "samples": samples}}]),
        ("set", ["ink", "#203040", 1]), ("line", [10, 10, 90, 90])])
    js = to_sketch(program)
    assert "pressure: {min_max: [0.4, 1.6], type: \"custom\", curve: aquarelleCurve(PRESSURE_0)}" in js
    ts = [i / 37 for i in range(38)]
    with MiniRacer() as ctx:
        ctx.eval(js.split("function setup()", 1)[0])
        got = json.loads(ctx.eval(f"JSON.stringify({json.dumps(ts)}.map(aquarelleCurve(PRESSURE_0)))"))
    want = [_pressure_at(t * 50.0, 50.0, True, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, np.array(samples)) for t in ts]
    assert got == pytest.approx(want, abs=1e-12) and len(set(got)) > 20
    back = run_sketch(js)
    assert back.ok, back.reason
    add = back.program.commands[[c.method for c in back.program.commands].index("add")]
    assert add.args[1]["pressure"]["min_max"] == [0.4, 1.6]
    assert add.args[1]["pressure"]["samples"][::25] == samples  # 101 samples of the same broken line


def test_a_brush_without_pressure_gets_the_defaults_p5brush_needs():
    js = to_sketch(Program.from_calls([("add", ["thin", {"weight": 2, "sharpness": None}]), ("set", ["thin", "#000", 1])]))
    line = next(ln for ln in js.splitlines() if "brush.add(" in ln)
    assert "pressure: {curve: [0.15, 0.2], min_max: [1.1, 0.9]}" in line
    assert "opacity: 150" in line and "spacing: 1" in line and "scatter: 0" in line
    assert "sharpness: null" in line  # an explicit null stays (p5.brush's markers use it)
    # a null pressure is the renderers' default one too (written as null, the export threw at the first stroke)
    js = to_sketch(Program.from_calls([("add", ["thin", {"weight": 2, "pressure": None}]), ("set", ["thin", "#000", 1])]))
    assert "pressure: {curve: [0.15, 0.2], min_max: [1.1, 0.9]}" in next(ln for ln in js.splitlines() if "brush.add(" in ln)


def test_a_pressure_is_a_bell_or_a_custom_curve_never_both():
    """Samples (a custom curve) on a bell pressure, or a bell's pair on a custom one, exported as one object with
    two curve keys: p5.brush reads the last, and the sandbox refused the export."""
    for pressure, needle in (({"curve": [0.1, 0.2], "min_max": [1.1, 0.9], "samples": [0.5, 0.7]}, "give type"),
                             ({"type": "custom", "min_max": [0, 1], "samples": [0.5, 0.7], "curve": [0.1, 0.2]},
                              "curve is its samples")):
        with pytest.raises(CommandError, match=needle):
            Program.from_calls([("add", ["b", {"weight": 2, "pressure": pressure}])])


def test_html_is_self_contained():
    html = to_html(_program(seed=1))
    assert html.startswith("<!doctype html>")
    assert "p5.brush 2.2.2" in html and "p5.js 2.3.4" in html
    assert "http-equiv=\"Content-Security-Policy\"" in html and "default-src 'none'" in html
    assert not re.search(r"<script[^>]+src=", html), "no external scripts"
    assert "sourceMappingURL" not in html
    assert len(re.findall(r"</script>", html)) == len(re.findall(r"<script>", html)) == 4
    assert "window.aquarelleDone = true" in html and "randomSeed(1);" in html


def test_format_follows_the_suffix_unless_given():
    assert format_for("a.js", None) == "js"
    assert format_for("a.html", None) == "html"
    assert format_for("a.out", None) == "html"
    assert format_for("a.html", "js") == "js"
    with pytest.raises(ValueError, match="--format must be html or js"):
        format_for("a.html", "png")


def test_cli_exports_a_program(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(_program(seed=4).dumps())
    runner = CliRunner()
    r = runner.invoke(app, ["export", str(src), "-o", str(tmp_path / "out.js")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "out.js").read_text() == to_sketch(_program(seed=4))
    r = runner.invoke(app, ["export", str(src), "-o", str(tmp_path / "page.out")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "page.out").read_text().startswith("<!doctype html>")
    # a rollout-style wrapper works the same way
    src2 = tmp_path / "obs.json"
    src2.write_text(json.dumps({"program": _program().to_json()}))
    r = runner.invoke(app, ["export", str(src2), "-o", str(tmp_path / "b.js")])
    assert r.exit_code == 0 and "brush.circle(" in (tmp_path / "b.js").read_text()


def test_cli_warns_when_the_sketch_is_over_the_sandbox_source_limit(tmp_path):
    """6,000 circles at full precision are a 400 KiB sketch: it paints in a browser, but the sandbox refuses it, so
    the export says so (it wrote it silently, and `check` of the result failed later)."""
    rng = np.random.default_rng(0)
    calls = [("fill", ["#d7263d", 120])] + [("circle", [float(x), float(y), float(r)])
                                             for x, y, r in rng.uniform(1, 599, (6000, 3))]
    src = tmp_path / "big.json"
    src.write_text(Program.from_calls(calls).dumps())
    for out in ("big.js", "big.html"):
        r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / out)])
        assert r.exit_code == 0 and "over the sandbox's 256 KiB source limit" in r.output, r.output
    small = tmp_path / "small.json"
    small.write_text(Program.from_calls(calls[:100]).dumps())
    r = CliRunner().invoke(app, ["export", str(small), "-o", str(tmp_path / "small.js")])
    assert r.exit_code == 0 and "source limit" not in r.output


@pytest.mark.parametrize(
    "content, args, needle",
    [
        ('{"commands": [{"method": "fill", "args": ["zz"]}]}', [], "unknown colour 'zz'"),
        ('{"commands": [', [], "not valid JSON"),
        ("{}", ["--format", "png"], "--format must be html or js"),
        # a .json file is program JSON whatever it opens with, as check and render decide
        ("[1, 2]", [], "bad.json: program JSON must be an object with a 'commands' list"),
        ("", [], "bad.json is not valid JSON"),
        ("[" * 100000, [], "bad.json: program JSON is nested too deeply"),
        # the state as check replays it: these exported to a page that threw and painted nothing
        ('{"commands": [{"method": "field", "args": ["nope"]}]}', [], 'field "nope" does not exist'),
        ('{"commands": [{"method": "set", "args": ["nobrush", "#000000", 1]}]}', [], 'brush "nobrush" not found'),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, content, args, needle):
    src = tmp_path / "bad.json"
    src.write_text(content)
    r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / "x.js"), *args])
    assert r.exit_code != 0
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], r.output
    assert not (tmp_path / "x.js").exists()


def test_cli_missing_file(tmp_path):
    r = CliRunner().invoke(app, ["export", str(tmp_path / "nope.js"), "-o", str(tmp_path / "x.html")])
    assert r.exit_code == 2 and "no such file" in r.output


def test_cli_usage_errors_exit_2_naming_the_problem(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(_program().dumps())
    runner = CliRunner()
    r = runner.invoke(app, ["export", str(tmp_path), "-o", str(tmp_path / "x.js")])
    assert r.exit_code == 2 and r.output.strip() == f"error: {tmp_path}: is a directory"
    r = runner.invoke(app, ["export", "--action-space", "bogus", str(src), "-o", str(tmp_path / "x.js")])
    assert r.exit_code == 2 and r.output.startswith("error: --action-space: unknown action space 'bogus'")
    r = runner.invoke(app, ["export", "-", "-o", "-"], input=b"abc\xff\xfe")
    assert r.exit_code == 2 and r.output.strip() == "error: stdin is not UTF-8 text"
    assert not (tmp_path / "x.js").exists()


def test_cli_warns_when_the_output_suffix_is_neither_html_nor_js(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(_program().dumps())
    r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / "x.png")])
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == f"warning: {tmp_path / 'x.png'} is not .html or .js; writing html"
    assert (tmp_path / "x.png").read_text().startswith("<!doctype html>")
    for name, args in (("x.js", []), ("y.txt", ["--format", "js"])):
        r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / name), *args])
        assert r.exit_code == 0 and "warning" not in r.stderr, r.output


# ---------------------------------------------------------------- round trip through the sandbox


def test_round_trip_export_then_sandbox_gives_the_same_program():
    from aquarelle.brush.sandbox import run_sketch

    p = _program(seed=3)
    res = run_sketch(to_sketch(p))
    assert res.ok, res.reason
    assert res.program.width == p.width and res.program.height == p.height
    got = [c.to_json() for c in res.program.recorded().commands]
    want = [c.to_json() for c in p.recorded().commands]
    assert got == want


def test_round_trip_spells_out_brush_defaults():
    from aquarelle.brush.export import BRUSH_DEFAULTS
    from aquarelle.brush.sandbox import run_sketch

    p = Program.from_calls([("add", ["thin", {"weight": 2}]), ("set", ["thin", "#000000", 1]), ("line", [0, 0, 9, 9])])
    res = run_sketch(to_sketch(p))
    assert res.ok, res.reason
    params = res.program.commands[0].args[1]
    assert {k: params[k] for k in BRUSH_DEFAULTS} == BRUSH_DEFAULTS and params["weight"] == 2
    assert [c.to_json() for c in res.program.commands[1:]] == [c.to_json() for c in p.commands[1:]]


def test_round_trip_of_a_published_style_sketch(tmp_path):
    """sketch -> program -> exported sketch -> program: the second program equals the first."""
    from aquarelle.brush.sandbox import run_sketch

    sketch = """
    function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); brush.scaleBrushes(1.5); noLoop(); }
    function draw() {
      translate(-width / 2, -height / 2);
      background("#fffceb");
      brush.noStroke();
      for (let i = 0; i < 4; i++) {
        brush.fill(["#e0607e", "#f2a541", "#5b8c5a", "#1f4b99"][i], 90 + 20 * i);
        brush.fillBleed(0.05 * i);
        brush.fillTexture(0.4, 0.3);
        brush.beginShape(0.5);
        for (let k = 0; k < 6; k++) brush.vertex(300 + (60 + 30 * i) * Math.cos(k), 300 + (60 + 30 * i) * Math.sin(k));
        brush.endShape(true);
      }
      brush.circle(120, 480, 60, 0.3);
    }
    """
    first = run_sketch(sketch)
    assert first.ok, first.reason
    src = tmp_path / "s.js"
    src.write_text(sketch)
    r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / "back.js")])
    assert r.exit_code == 0, r.output
    second = run_sketch((tmp_path / "back.js").read_text())
    assert second.ok, second.reason
    assert [c.to_json() for c in second.program.recorded().commands] == [c.to_json() for c in first.program.recorded().commands]


def test_round_trips_of_the_examples_are_stable():
    """Export, run in the sandbox, export again: the program is the same at every turn (``examples/study.js``
    refreshes a custom field, and each turn recorded one more copy of its grid)."""
    from aquarelle.brush.sandbox import run_sketch

    for f in sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.js")):
        prog = run_sketch(f.read_text()).program
        assert prog is not None, f
        again = run_sketch(to_sketch(prog)).program
        twice = run_sketch(to_sketch(again)).program
        assert len(again.commands) == len(twice.commands) and again.commands == twice.commands, f.name


def test_the_sandbox_frames_the_calls_the_export_draws_through_the_frame():
    """The prelude (JavaScript) and the export (Python) must agree on which calls a frame holds: a call the sandbox
    records in its own coordinates that the export drew on the canvas would paint elsewhere in p5.brush."""
    from pathlib import Path

    import aquarelle.brush
    from aquarelle.brush.commands import FRAMED_CALLS, SPECS

    prelude = (Path(aquarelle.brush.__file__).parent / "js" / "prelude.js").read_text(encoding="utf-8")
    body = re.search(r"const FRAMED = \{([^}]*)\}", prelude).group(1)
    framed = set(re.findall(r"(\w+): 1", body))
    assert framed and framed | {"hatchArray"} == FRAMED_CALLS  # hatchArray is framed only when it hatches
    assert FRAMED_CALLS <= set(SPECS)
    prog = Program.from_calls([("frame", [0, 1, -1, 0, 300, 0]), ("fill", ["#336699", 150]), ("rect", [0, 0, 50, 40]),
                               ("circle", [10, 10, 5]), ("polygon", [[[0, 0], [30, 0], [0, 30]]]),
                               ("line", [0, 0, 40, 40]), ("arc", [0, 0, 20, 0, 90])])
    sketch = to_sketch(prog)
    assert sketch.count("applyMatrix(0, 1, -1, 0, 300, 0);") == 5


def test_round_trip_of_shapes_drawn_in_their_own_frame():
    """A filled shape under rotate/scale is recorded in its own coordinates after a ``frame``; the export draws it
    through that transform (push, applyMatrix, the call, pop), and the sandbox makes the same program of it again,
    frames, shapes, strokes and the identity frame after them alike."""
    from aquarelle.brush.sandbox import run_sketch

    sketch = """
    function setup() { createCanvas(400, 300, WEBGL); angleMode(DEGREES); noLoop(); }
    function draw() {
      translate(-width / 2, -height / 2); background(250); randomSeed(2);
      brush.set("HB", "#223344", 1); brush.fill("#cc4466", 110); brush.fillBleed(0.3, "out", 40);
      for (let i = 0; i < 5; i++) {
        push(); translate(200, 150); rotate(i * 72); scale(1 + i / 10);
        brush.beginShape(0.4); brush.vertex(0, 0); brush.vertex(20, -40); brush.vertex(0, -90); brush.vertex(-20, -40);
        brush.endShape(true); pop();
      }
      push(); translate(80, 80); rotate(-20); brush.rect(-30, -20, 60, 40); brush.rect(20, 10, -40, -30, "center");
      brush.circle(0, 0, 25, 0.4); brush.polygon([[-10, 30], [40, 35], [10, 60]]); pop();
      brush.rect(300, 200, 60, 50); brush.noFill(); push(); rotate(10); brush.circle(320, 60, 20); pop();
    }
    """
    first = run_sketch(sketch)
    assert first.ok, first.reason
    methods = [c.method for c in first.program.commands]
    assert methods.count("frame") == 8  # five petals (the first only moved), the rotated group, the stroked circle
    # under rotate(10), the canvas again
    back = to_sketch(first.program)
    assert "applyMatrix(" in back and back.count("push();") == back.count("pop();") == 7  # the sketch's own
    second = run_sketch(back)
    assert second.ok, second.reason
    assert [c.to_json() for c in second.program.recorded().commands] == [c.to_json() for c in first.program.recorded().commands]


def test_cli_never_writes_over_its_source_and_names_a_bad_output_folder(tmp_path):
    """`export self.js -o self.js` replaced the sketch with its export; `-o good.js/x.html` said "File exists"."""
    src = tmp_path / "p.json"
    text = _program().dumps()
    src.write_text(text)
    runner = CliRunner()
    for out in (src, tmp_path / ".." / tmp_path.name / "p.json"):
        r = runner.invoke(app, ["export", str(src), "-o", str(out), "--format", "js"])
        assert r.exit_code == 2 and r.output.strip() == \
            f"error: {out} is the input {src}; refusing to overwrite it (name another output)"
    assert src.read_text() == text
    r = runner.invoke(app, ["export", str(src), "-o", str(src / "x.html")])
    assert r.exit_code == 2 and r.output.strip() == f"error: -o {src / 'x.html'}: {src} is not a directory"
    huge = tmp_path / "huge.json"
    huge.write_text('{"commands":[{"method":"circle","args":[' + "9" * 5000 + ",300,100]}]}")
    r = runner.invoke(app, ["export", str(huge), "-o", str(tmp_path / "h.html")])
    assert r.exit_code == 1 and r.output.strip() == \
        f"error: {huge}: program JSON holds a number too large (5000 digits) at line 1 column 41"


def test_no_model_written_string_closes_the_exported_script_or_breaks_its_lines():
    """A brush name is the model's text: ``</SCRIPT><svg onload=...>`` (HTML's end tag is case-blind; only lowercase
    was escaped) closed the page's script and ran its own; U+2028 in a name became a line break inside the string
    literal, a syntax error that painted nothing. Both export as escapes the sandbox reads back to the same name."""
    from aquarelle.brush.sandbox import run_sketch

    hostile = "</SCRIPT><svg onload=alert(1)><!--"
    p = Program.from_calls([("add", [hostile, {"type": "marker", "weight": 5}]), ("set", [hostile, "#ff0000", 3]),
                            ("line", [10, 10, 200, 200]),
                            ("add", ["a\u2028b\u2029c\u0085d", {"type": "marker", "weight": 2}]),
                            ("set", ["a\u2028b\u2029c\u0085d", "#000000", 1]),
                            ("seed", ["</Script >"]), ("line", [20, 20, 90, 90])], seed=1)
    for text in (to_sketch(p), to_html(p)):
        assert "\u2028" not in text and "\u2029" not in text
        assert not re.search(r"<!--|<svg", text, re.I)
    html = to_html(p)
    assert len(re.findall(r"</script", html, re.I)) == len(re.findall(r"<script>", html)) == 4
    sketch = html.split("<script>")[-1].split("</script>")[0]  # the page's own sketch, as the browser reads it
    got = []
    for js in (to_sketch(p), sketch):
        res = run_sketch(js)
        assert res.ok, res.reason
        got.append([c.to_json() for c in res.program.recorded().commands])
    assert got[0] == got[1]  # the page paints what the .js export does (brush defaults spelled out, as documented)
    assert [(c["method"], c["args"][0]) for c in got[0] if c["method"] in ("add", "set", "seed")] == \
        [(c.method, c.args[0]) for c in p.recorded().commands if c.method in ("add", "set", "seed")]


def test_check_render_and_score_take_what_export_takes(tmp_path):
    """A rollout's ``{"program": ...}`` and ``{"code": "..."}`` exported, and check/render refused them ("program
    JSON needs a 'commands' list"): the same file now paints the same in all of them."""
    prog = _program(seed=4)
    sketch = to_sketch(prog)
    inputs = {"wrapped.json": {"program": prog.to_json()}, "code_sketch.json": {"code": sketch},
              "code_program.json": {"code": prog.dumps()}}
    for name, data in inputs.items():
        (tmp_path / name).write_text(json.dumps(data))
    runner = CliRunner()
    paths = [str(tmp_path / n) for n in inputs]
    r = runner.invoke(app, ["check", *paths, "--json"])
    assert r.exit_code == 0, r.output
    assert [json.loads(x)["summary"]["shapes"] for x in r.output.splitlines()] == [prog.summary()["shapes"]] * 3
    r = runner.invoke(app, ["render", *paths, "--out-dir", str(tmp_path / "png"), "--json", "--size", "100"])
    assert r.exit_code == 0, r.output
    pngs = [(tmp_path / "png" / n).with_suffix(".png").read_bytes() for n in inputs]
    assert pngs[0] == pngs[2]  # the same program; the sketch's own seeding may differ, so only painted
    assert all(json.loads(x)["coverage"] > 0 for x in r.output.splitlines())
    (tmp_path / "plain.js").write_text(sketch)  # after a program, a sketch's line is JSON too (it was the text)
    r = runner.invoke(app, ["score", paths[0], str(tmp_path / "plain.js"), "--json"])
    assert r.exit_code == 0 and [json.loads(x)["reward"] is not None for x in r.output.splitlines()] == [True] * 2
    (tmp_path / "neither.json").write_text(json.dumps({"prompt": "x"}))  # still the program's own complaint
    r = runner.invoke(app, ["check", str(tmp_path / "neither.json")])
    assert r.exit_code == 1 and "program JSON needs a 'commands' list" in r.output


def test_check_render_and_score_read_standard_input_as_export_does(tmp_path):
    """'-' reads a sketch or a program from stdin (export alone took it): piped in, it is checked, painted and
    scored as the same file is; stdin is read once (named twice is a usage error) and no further than its limit."""
    prog = _program(seed=4)
    inputs = {"s.js": to_sketch(prog), "p.json": prog.dumps()}
    runner = CliRunner()
    for name, text in inputs.items():
        (tmp_path / name).write_text(text)
        r = runner.invoke(app, ["check", "-", "--json"], input=text)
        assert r.exit_code == 0, r.output
        row = json.loads(r.stdout)
        assert row["sketch"] == "-" and row["summary"]["shapes"] == prog.summary()["shapes"]
        r = runner.invoke(app, ["render", "-", "-o", str(tmp_path / "in.png"), "--size", "100", "--json"], input=text)
        assert r.exit_code == 0 and json.loads(r.stdout)["sketch"] == "-", r.output
        r = runner.invoke(app, ["render", str(tmp_path / name), "-o", str(tmp_path / "file.png"), "--size", "100"])
        assert r.exit_code == 0 and (tmp_path / "in.png").read_bytes() == (tmp_path / "file.png").read_bytes()
        piped, read = (json.loads(runner.invoke(app, ["score", src, "--json"], input=text).stdout)
                       for src in ("-", str(tmp_path / name)))
        assert piped["sketch"] == "-" and piped["reward"] is not None and piped["reward"] == read["reward"]
    r = runner.invoke(app, ["render", "-", "--out-dir", str(tmp_path / "d"), "--size", "100"], input=inputs["s.js"])
    assert r.exit_code == 0 and (tmp_path / "d" / "stdin.png").is_file(), r.output
    r = runner.invoke(app, ["render", "-"], input=inputs["s.js"])  # nothing beside which to write it
    assert r.exit_code == 2 and r.output.strip() == ("- (stdin) has no file to write beside: name the PNG with -o "
                                                     "OUT.png or a folder with --out-dir DIR")
    for args in (["check", "-", "-"], ["render", "-", "-", "--out-dir", str(tmp_path / "d")], ["score", "-", "-"]):
        r = runner.invoke(app, args, input=inputs["s.js"])
        assert r.exit_code == 2 and r.output.strip() == "'-' (standard input) can be read once; name it once"
    big = "// " + "x" * 300_000  # past the sandbox's source limit: the sketch's own refusal, as a file's is
    r = runner.invoke(app, ["check", "-", "--json"], input=big)
    assert r.exit_code == 1 and json.loads(r.stdout)["limit"] == "source"
    assert json.loads(r.stdout)["reason"] == "source limit: the sketch on stdin is longer than 262144 bytes"


def test_export_names_a_format_that_its_file_name_contradicts_and_a_folder_before_its_suffix(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(_program(seed=4).dumps())
    r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / "page.html"), "--format", "js"])
    assert r.exit_code == 0 and f"warning: writing js (--format) into {tmp_path / 'page.html'}, whose name says " \
                                 "html" in r.output, r.output
    assert (tmp_path / "page.html").read_text() == to_sketch(_program(seed=4))  # what was asked for, said
    r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / "ok.js"), "--format", "JS"])
    assert r.exit_code == 0 and "warning" not in r.output, r.output
    (tmp_path / "folder").mkdir()  # one line: no "not .html or .js" warning about a folder's name before it
    r = CliRunner().invoke(app, ["export", str(src), "-o", str(tmp_path / "folder")])
    assert r.exit_code == 2 and r.output.strip() == f"error: -o {tmp_path / 'folder'} is a directory; name the file " \
                                                    "to write", r.output
