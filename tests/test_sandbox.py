"""The sketch runner: published-skeleton sketches become programs; violations and limits reject them."""

import math
import time
from pathlib import Path

import pytest

from aquarelle.brush.sandbox import SandboxLimits, SketchRunner, execute, run_sketch, static_violations
from aquarelle.brush.commands import CommandError, validate
from aquarelle.brush.p5_clamps import HAIRLINE, INVISIBLE_FILL

SKETCHES = Path(__file__).parent / "sketches"
EXAMPLES = Path(__file__).parent.parent / "examples"


def skeleton(body: str, setup_extra: str = "", mode: str = "DEGREES") -> str:
    return (f"async function setup() {{\n  createCanvas(600, 600, WEBGL);\n  brush.scaleBrushes(1.5);\n"
            f"  angleMode({mode});\n  noLoop();\n  {setup_extra}\n}}\n"
            f"function draw() {{\n  translate(-width / 2, -height / 2);\n  background('#fffceb');\n  {body}\n}}\n")


@pytest.fixture(scope="module")
def runner():
    r = SketchRunner()
    yield r
    r.close()


def calls(res):
    assert res.ok, res.reason
    return [(c.method, c.args) for c in res.program.commands]


def approx_calls(res):
    return [(m, [round(a, 6) if isinstance(a, float) else a for a in args]) for m, args in calls(res)]


# --------------------------------------------------------------------------- programs


def test_published_skeleton_flower(runner):
    res = runner.run((SKETCHES / "flower_basic.js").read_text())
    got = calls(res)
    assert got[0] == ("scaleBrushes", [1.5]) and got[1] == ("background", ["#fffceb"])
    circles = [a for m, a in got if m == "circle"]
    assert len(circles) == 6
    # cos/sin honour angleMode(DEGREES): petal 0 at +x, petal 1 at 60 degrees
    assert circles[0][:2] == [380, 300]
    assert circles[1][0] == pytest.approx(340) and circles[1][1] == pytest.approx(300 + 80 * 3 ** 0.5 / 2)
    assert res.program.width == 600 and res.program.height == 600
    assert res.ms > 0 and res.limit is None and res.error is None


def test_end_shape_with_p5_close_constant_closes(runner):
    """``brush.endShape(CLOSE)`` is p5's idiom, and p5.brush closes on any truthy value: it closes the shape, the
    program is the one ``endShape(true)`` gives, and it paints the same."""
    from aquarelle.render.native import render

    shape = "brush.fill('#e76f51', 150); brush.beginShape(0.4); brush.vertex(100, 100); brush.vertex(400, 150); " \
            "brush.vertex(250, 450); brush.endShape({});"
    closed = runner.run(skeleton(shape.format("CLOSE")))
    assert calls(closed)[-1] == ("endShape", [True])
    assert closed.program.dumps() == runner.run(skeleton(shape.format("true"))).program.dumps()
    assert calls(runner.run(skeleton(shape.format(""))))[-1] == ("endShape", [False])
    assert (render(closed.program) != render(runner.run(skeleton(shape.format("false"))).program)).any()
    bad = runner.run(skeleton(shape.format("'yes'")))
    assert not bad.ok and "true or false" in bad.reason


def test_seeded_random_same_seed_same_program(runner):
    src = (SKETCHES / "loops_random.js").read_text()
    a = runner.run(src, seed=1)
    b = runner.run(src, seed=1)
    c = runner.run(src, seed=2)
    assert a.ok and b.ok and c.ok
    assert a.program.dumps() == b.program.dumps()
    assert a.program.dumps() != c.program.dumps()
    assert a.program.seed == 1
    summary = a.program.summary()
    assert summary["methods"]["circle"] == 12 and summary["methods"]["vertex"] == 15
    assert run_sketch(src, seed=1).program.dumps() == a.program.dumps()  # the module default agrees


def test_random_forms_and_noise(runner):
    res = runner.run(skeleton(
        "randomSeed(5); const a = random(); const b = random(10); const c = random(3, 4);"
        "const d = random(['x', 'y']); const n = noise(0.3, 0.7, 0.1); noiseSeed(3); const n2 = noise(0.3, 0.7, 0.1);"
        "const g = randomGaussian(50, 1);"
        "brush.circle(1 + a, 1 + b, c); brush.circle(1 + n * 100, 1 + n2 * 100, d === 'x' || d === 'y' ? 2 : 99);"
        "brush.circle(g, 5, constrain(map(5, 0, 10, 0, 100), 1, 40)); brush.circle(dist(0, 0, 3, 4), lerp(0, 10, 0.5), sq(2));"))
    got = calls(res)
    (_, c1), (_, c2), (_, c3), (_, c4) = got[-4:]
    assert 1 <= c1[0] < 2 and 1 <= c1[1] < 11 and 3 <= c1[2] < 4
    assert 1 < c2[0] < 101 and c2[0] != c2[1] and c2[2] == 2
    assert 40 < c3[0] < 60 and c3[2] == 40
    assert c4[:3] == [5, 5, 4]
    again = calls(runner.run(skeleton(
        "randomSeed(5); const a = random(); brush.circle(1 + a, 1, 1);")))
    assert again[-1][1][0] == c1[0]


def _p5_lcg(seed: int):
    """p5.js 2.x's random(): its linear congruential generator (Numerical Recipes constants), seeded seed >>> 0."""
    z = seed % 2**32
    while True:
        z = (1664525 * z + 1013904223) % 2**32
        yield z / 2**32


def _p5_noise1(table: list[float], x: float, octaves: int = 4, falloff: float = 0.5) -> float:
    """p5's noise(x) along y = z = 0 (where its y and z lerps add nothing)."""
    xi, xf, r, ampl = math.floor(x), x - math.floor(x), 0.0, 0.5
    for _ in range(octaves):
        f = 0.5 * (1.0 - math.cos(xf * math.pi))
        n = table[xi & 4095]
        r += (n + f * (table[(xi + 1) & 4095] - n)) * ampl
        ampl *= falloff
        xi, xf = xi << 1, xf * 2
        if xf >= 1.0:
            xi, xf = xi + 1, xf - 1
    return r


def test_random_and_noise_draw_p5s_own_numbers(runner):
    """The model's sketch is code that runs anywhere: seeded, it must draw in p5.js the numbers its program was made
    with, so random, randomGaussian, shuffle and noise are p5's generators, not merely seeded ones."""
    res = runner.run(skeleton(
        "randomSeed(5); brush.circle(1 + random(), 1 + random(3, 1), 1 + random(10));"
        "const s = shuffle([1, 2, 3, 4]); brush.circle(s[0], s[1], s[2] + s[3] * 10);"
        "const g = randomGaussian(50, 2); brush.circle(g, 5, 5);"
        "noiseSeed(7); brush.circle(1 + 100 * noise(0.3), 1 + 100 * noise(5.7), 5);"
        "noiseDetail(2); brush.circle(1 + 100 * noise(0.3), 1 + 100 * noise(1000.25), 5);"
        "randomSeed(5); brush.circle(1 + random(), 1 + Math.random() * 0, 5 + random(10));"))
    c1, c2, c3, c4, c5, c6 = (args[:3] for m, args in calls(res) if m == "circle")
    r = _p5_lcg(5)
    a, b, c = next(r), next(r), next(r)
    assert c1 == pytest.approx([1 + a, 1 + b * 2 + 1, 1 + c * 10], abs=1e-9)  # random(3, 1) is random(1, 3)
    deck = [1, 2, 3, 4]
    for i in range(3, 0, -1):  # p5's Fisher-Yates, from the top
        j = int(next(r) * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    assert c2 == [deck[0], deck[1], deck[2] + deck[3] * 10]
    while True:  # p5's polar method
        x1, x2 = next(r) * 2 - 1, next(r) * 2 - 1
        w = x1 * x1 + x2 * x2
        if w < 1:
            break
    assert c3[0] == pytest.approx(50 + 2 * x1 * math.sqrt(-2 * math.log(w) / w), abs=1e-9)
    nz = _p5_lcg(7)
    table = [next(nz) for _ in range(4096)]
    assert c4[:2] == pytest.approx([1 + 100 * _p5_noise1(table, 0.3), 1 + 100 * _p5_noise1(table, 5.7)], abs=1e-9)
    assert c5[:2] == pytest.approx([1 + 100 * _p5_noise1(table, 0.3, 2), 1 + 100 * _p5_noise1(table, 1000.25, 2)],
                                   abs=1e-9)  # noiseDetail without a falloff: p5's 0.5
    # Math.random is a stream of its own, as in p5: a reseed repeats random()'s numbers with it drawn in between
    assert c6[0] == c1[0] and c6[2] == pytest.approx(5 + b * 10, abs=1e-9)


def test_an_unseeded_sketch_draws_as_if_seeded_with_the_run_seed(runner):
    """Without randomSeed/noiseSeed p5 draws from Math.random; the sandbox starts p5's generators at the run's seed,
    which is what the program's export (opening with randomSeed(seed) and noiseSeed(seed)) does."""
    unseeded = runner.run(skeleton("brush.circle(1 + 100 * random(), 1 + 100 * noise(2.5), 5);"), seed=42)
    seeded = runner.run(skeleton("randomSeed(42); noiseSeed(42); brush.circle(1 + 100 * random(), 1 + 100 * noise(2.5), 5);"),
                        seed=42)
    assert calls(unseeded)[-1] == calls(seeded)[-1]
    assert calls(unseeded)[-1][1][0] == pytest.approx(1 + 100 * next(_p5_lcg(42)), abs=1e-9)



def test_arguments_p5_brush_clamps_are_clamped_and_the_rest_still_refused(runner):
    """p5.brush clamps a bleed, a texture, a shape's curvature, a fill's opacity and colour channels, and bleeds in
    for any direction but "out" (measured in Chromium: each paints as its clamped value); the sandbox refused them, the gate's 0 for valid p5.brush code.
    A program (and a tool call) stays strict, and what p5.brush does not clamp is still refused."""
    body = ("brush.fillBleed(1.6, 'in'); brush.fillTexture(-1, 7); brush.beginShape(3); brush.vertex(1, 1);"
            "brush.vertex(9, 1); brush.vertex(5, 9); brush.endShape(CLOSE); brush.fill('#d7263d', 400);"
            "brush.fill(300, -4, 60); brush.fill(300, 40, 60); brush.fill(20, 0, 60); brush.fill('#123456', 0);"
            "brush.fill([10, 20, 30], -9); brush.wash('#123456', -3); brush.set('2B', [999, 0, -1], 2);"
            "brush.stroke(20, 300, 1); brush.hatchStyle('HB', -7); brush.fillBleed(0.3);"
            "brush.fillBleed(0.2, 'outward');")
    got = [(m, a) for m, a in calls(runner.run(skeleton(body))) if m not in ("vertex", "scaleBrushes", "background")]
    assert got == [("fillBleed", [1, "in", None]), ("fillTexture", [0, 1, True]), ("beginShape", [1]),
                   ("endShape", [True]), ("fill", ["#d7263d", 255]), ("fill", ["#ff003c", INVISIBLE_FILL]),
                   ("fill", ["#ff283c", 40]), ("fill", ["#14003c", 150]), ("fill", ["#123456", 150]),
                   ("fill", ["#0a141e", INVISIBLE_FILL]), ("wash", ["#123456", 0]), ("set", ["2B", "#ff0000", 2]),
                   ("stroke", ["#14ff01"]), ("hatchStyle", ["HB", "#000000", 1]), ("fillBleed", [0.3, "out", None]),
                   ("fillBleed", [0.2, "in", None])]  # p5.brush: direction === "out" ? out : in
    for call, msg in (("brush.spline([[1, 1], [50, 80], [90, 10]], 2);", "spline: curvature must be in 0-1"),
                      ("brush.circle(50, 50, 20, 15);", "circle: irregularity must be in -10 to 10"),
                      ("brush.beginShape(); brush.vertex(1, 1, 3);", "vertex: pressure must be in 0-2"),
                      ("brush.fillBleed(NaN);", "fillBleed: strength must be finite")):
        res = runner.run(skeleton(call))
        assert not res.ok and msg in res.reason, res.reason
    with pytest.raises(CommandError, match="strength must be in 0-1, got 1.6"):
        validate("fillBleed", [1.6])



def test_keys_p5_brush_does_not_read_are_dropped_from_a_sketchs_options_and_params(runner):
    """p5.brush reads hatch's and mass's options and add's params by key and ignores any other, and tests the flags
    for truth: ``{density: 3}``, ``{color: "red"}`` or ``continuous: 1`` in a sketch were "unknown option" errors,
    the gate's 0 for code p5.brush paints. They make the program the sketch makes without them; a tool call or
    program is still told."""
    extra = ("brush.add('b', {weight: 2, scatter: 1, sharpness: 0.5, opacity: 90, pressure: [1, 1], color: 'red'});"
             "brush.hatch(6, 30, {rand: 0.1, continuous: 1, density: 3});"
             "brush.mass('HB', '#224466', {strength: 0.8, outline: 0, smooth: true}); brush.circle(50, 50, 20);")
    plain = ("brush.add('b', {weight: 2, scatter: 1, sharpness: 0.5, opacity: 90, pressure: [1, 1]});"
             "brush.hatch(6, 30, {rand: 0.1, continuous: true});"
             "brush.mass('HB', '#224466', {strength: 0.8, outline: false}); brush.circle(50, 50, 20);")
    assert runner.run(skeleton(extra)).program == runner.run(skeleton(plain)).program
    with pytest.raises(CommandError, match="hatch: unknown option 'density'"):
        validate("hatch", [6, 30, {"density": 3}])
    with pytest.raises(CommandError, match="add: unknown brush parameter 'color'"):
        validate("add", ["b", {"weight": 2, "color": "red"}])


def test_a_stroke_weight_of_zero_paints_p5_brushs_hairline(runner):
    """``brush.set(name, c, map(i, 0, n, 0, 2))`` makes weight 0 on its first pass: p5.brush paints it (its stamps
    have a least size), the sandbox refused the whole sketch. Weight 0 is the vanishing weight it paints like;
    a negative one, which p5.brush paints otherwise than its size, is still refused."""
    body = ("brush.set('2B', 'black', 0); brush.line(1, 1, 50, 50); brush.strokeWeight(0);"
            "brush.hatchStyle('HB', 'red', 0);")
    got = [(m, a) for m, a in calls(runner.run(skeleton(body))) if m in ("set", "strokeWeight", "hatchStyle")]
    assert got == [("set", ["2B", "#000000", HAIRLINE]), ("strokeWeight", [HAIRLINE]),
                   ("hatchStyle", ["HB", "#ff0000", HAIRLINE])]
    res = runner.run(skeleton("brush.set('2B', 'black', -1.5);"))
    assert not res.ok and "set: weight must be > 0, got -1.5" in res.reason, res.reason


def test_a_flowline_of_negative_length_is_p5_brushs_length_zero(runner):
    """p5.brush takes a negative flowLine length as a negative number of steps: none, after the stroke's random
    numbers, as at length 0 (the sandbox refused it, the gate's 0). A negative length under a rotation too; a
    program or a tool call is still told."""
    body = ("brush.set('2B', 'black', 1); brush.flowLine(10, 10, -25, 30); brush.flowLine(10, 10, 25, 30);"
            "push(); rotate(40); brush.flowLine(60, 10, -5, 0); pop();")
    got = [a for m, a in calls(runner.run(skeleton(body))) if m == "flowLine"]
    assert [a[2] for a in got] == [0, 25, 0] and got[0][:2] == [10, 10]
    with pytest.raises(CommandError, match="flowLine: length must be in 0-100000, got -25"):
        validate("flowLine", [10, 10, -25, 30])


def test_a_filled_shape_under_rotate_or_scale_is_recorded_in_its_own_frame(runner):
    """p5.brush builds a fill (and a hatch) in the shape's own axes and draws it through the transform: a filled or
    hatching (or stroked) rect, circle, polygon or beginShape/endShape under a rotation, one scale or a move keeps
    the sketch's own coordinates after a ``frame`` holding the transform, the hatch recorded as hatch() was given
    it; a shape after it without one gets the canvas's frame back. A scale that differs by axis stays baked into
    canvas coordinates, as before."""
    body = ("brush.fill('#cc4466', 110); push(); translate(100, 50); rotate(90);"
            "brush.rect(0, 0, 10, 20); brush.circle(5, 5, 4); brush.polygon([[0, 0], [9, 0], [0, 9]]);"
            "brush.beginShape(0); brush.vertex(1, 2); brush.vertex(3, 4); brush.vertex(5, 1); brush.endShape(true); pop();"
            "brush.circle(10, 10, 3);"
            "push(); translate(10, 10); brush.circle(0, 0, 5); pop();"
            "push(); scale(2, 1); brush.rect(1, 1, 5, 5); pop();"
            "push(); rotate(90); brush.hatchStyle('HB', 'black', 1); brush.hatch(4, 30); brush.rect(1, 1, 5, 5); brush.noHatch();"
            "brush.noFill(); brush.set('HB', 'black', 1); brush.rect(0, 0, 10, 20); pop();")
    got = approx_calls(runner.run(skeleton(body)))
    hatches = [a for m, a in got if m == "hatch"]
    assert hatches == [[4, 30, {}]]  # as given, under the rotation too
    got = [(m, a) for m, a in got if m not in ("fill", "set", "hatchStyle", "hatch", "noHatch", "noFill",
                                               "scaleBrushes", "background", "push", "pop")]
    turn = [pytest.approx(v, abs=1e-12) for v in (0, 1, -1, 0, 100, 50)]
    assert got[:11] == [("frame", turn), ("rect", [0, 0, 10, 20, "corner"]), ("circle", [5, 5, 4, 0]),
                        ("polygon", [[[0, 0], [9, 0], [0, 9]]]), ("beginShape", [0]), ("vertex", [1, 2, 1]),
                        ("vertex", [3, 4, 1]), ("vertex", [5, 1, 1]), ("endShape", [True]),
                        ("frame", [1, 0, 0, 1, 0, 0]), ("circle", [10, 10, 3, 0])]
    assert got[11:13] == [("frame", [1, 0, 0, 1, 10, 10]), ("circle", [0, 0, 5, 0])]  # a move alone too
    assert got[13:15] == [("frame", [1, 0, 0, 1, 0, 0]), ("rect", [2, 1, 10, 5, "corner"])]  # scale(2, 1): baked
    assert got[15:17] == [("frame", turn[:4] + [0, 0]), ("rect", [1, 1, 5, 5, "corner"])]  # hatched: framed
    assert [m for m, _ in got[17:]] == ["rect"]  # stroked only: framed as well (the same turn: no new frame)


def test_the_frames_the_sandbox_writes_are_the_frames_a_program_may_hold(runner):
    """The sandbox frames a shape under a similarity of scale 1e-4 to 1e4 (within 1e-9 of one), and a program's
    ``frame`` is tested with the same arithmetic: a frame at the edge of that range validates, one just past it is
    refused (the validator took frames up to 2e-9 off and scales to 2e4, which the sandbox then baked into the shape
    when the exported sketch ran: an irregular circle came back a smooth 48-vertex polygon)."""
    got = approx_calls(runner.run(skeleton("brush.fill('red', 100); scale(10000); rotate(33); brush.circle(0.01, 0.01, 0.005, 0.5);")))
    frame = next(a for m, a in got if m == "frame")
    assert validate("frame", frame).args == frame and ("circle", [0.01, 0.01, 0.005, 0.5]) in got
    off = approx_calls(runner.run(skeleton("brush.fill('red', 100); applyMatrix(1, 0, 0, 1 + 1.5e-9, 0, 0);"
                                           "brush.circle(300, 300, 50, 0.5);")))
    assert "frame" not in [m for m, _ in off] and [m for m, _ in off].count("vertex") == 48  # baked, as before
    for args, needle in (([1, 0, 0, 1 + 1.5e-9, 0, 0], "a rotation and one scale"),
                         ([1.5e4, 0, 0, 1.5e4, 0, 0], "scale must be in"), ([5e-5, 0, 0, 5e-5, 0, 0], "scale must be in")):
        with pytest.raises(CommandError, match=needle):
            validate("frame", args)


def test_p5_push_and_pop_are_recorded(runner):
    """p5.brush saves and restores its state with p5's push()/pop(), so the sandbox records them (the state model
    replays them); the brush state it tracks for its own choices (fill on, hatch args) is restored with them: a
    filled circle inside a rotated push() is framed, a circle after pop() (no fill, nothing hatched) is not."""
    body = ("brush.noStroke(); push(); translate(50, 50); rotate(30); brush.fill('red', 100); brush.circle(0, 0, 9);"
            "pop(); push(); rotate(30); brush.set('HB', 'black', 1); brush.circle(5, 5, 3); pop();")
    got = [m for m, _ in calls(runner.run(skeleton(body)))]
    i = got.index("push")
    assert got[i:] == ["push", "fill", "frame", "circle", "pop", "push", "set", "frame", "circle", "pop"]


def test_wrand_answers_as_p5_brush_does(runner):
    """p5.brush's ``wRand`` gives a key that reads as a number back as a number (``parseInt``) and nothing when no
    weight is positive; the sandbox gave the key's text and, with no weight, the last key."""
    body = ("const n = brush.wRand({3: 1, 7: 1}); brush.circle(typeof n === 'number' ? n * 10 : 1, 5, 5);"
            "const z = brush.wRand({a: 0, b: 0}); brush.circle(z === undefined ? 2 : 3, 5, 5);"
            "const s = brush.wRand({red: 1}); brush.fill(s, 100); brush.circle(9, 9, 9);")
    got = [a for m, a in calls(runner.run(skeleton(body))) if m in ("circle", "fill")]
    assert got[0][0] in (30, 70) and got[1][0] == 2 and got[2] == ["#ff0000", 100]


def test_a_circle_or_arc_under_a_scale_that_differs_by_axis_is_its_ellipse(runner):
    """p5.brush draws a circle through the canvas transform; under scale(2, 0.5) that is an ellipse, and the sandbox
    recorded a circle of the mean scale. It records the closed shape of the ellipse; under a rotation and a uniform
    scale a circle stays a circle."""
    body = ("push(); translate(100, 90); scale(2, 0.5); brush.circle(0, 0, 35); pop();"
            "push(); translate(50, 50); rotate(30); scale(1.5); brush.circle(0, 0, 10); pop();")
    got = [(m, a) for m, a in calls(runner.run(skeleton(body))) if m not in ("push", "pop")]
    ms = [m for m, _ in got]
    assert ms.count("vertex") == 48 and ms[ms.index("beginShape"):].count("endShape") == 1
    xs, ys = zip(*[a[:2] for m, a in got if m == "vertex"])
    assert (min(xs), max(xs), min(ys), max(ys)) == pytest.approx((30, 170, 72.5, 107.5))
    assert got[-1] == ("circle", [pytest.approx(50), pytest.approx(50), pytest.approx(15), 0])
    # an arc there is the stroke of its elliptical arc (an arc is a stroke only in p5.brush)
    got = [(m, a) for m, a in calls(runner.run(skeleton("push(); translate(150, 80); scale(2, 0.5);"
                                                         "brush.arc(0, 0, 50, 0, 180); pop();"))) if m not in ("push", "pop")]
    ms = [m for m, _ in got]
    assert ms[ms.index("beginStroke"):] == ["beginStroke"] + ["move"] * 24 + ["endStroke"]
    start = got[ms.index("beginStroke")][1]
    assert start[0] == "curve" and start[1:] == [pytest.approx(250), pytest.approx(80)]
    assert sum(a[1] for m, a in got if m == "move") == pytest.approx(214.4, abs=0.5)  # half an ellipse 200 x 50


def test_brush_colours_in_hsb_and_hsl_modes_are_the_colours_p5_makes(runner):
    """colorMode(HSB) threw here ("not supported"), so a sketch in HSB was a sketch error. p5.brush makes a brush
    colour from numbers with p5's color(), in the sketch's mode, and fill's opacity is still its second number."""
    body = ("colorMode(HSB); background(40, 10, 98); brush.fill(200, 50, 80); brush.fill(200, 50, 80, 90);"
            "brush.wash([120, 100, 50], 60); brush.set('2B', 0, 2); brush.stroke(0, 0, 100); colorMode(HSL, 1);"
            "brush.hatchStyle('HB', [0.5, 0.5, 0.5]); colorMode(RGB); brush.fill(10, 20, 30, 40);")
    got = [(m, a) for m, a in calls(runner.run(skeleton(body))) if m not in ("scaleBrushes",)]
    assert got[1:] == [("background", ["#faf2e1"]), ("fill", ["#66aacc", 50]), ("fill", ["#66aacc", 90]),
                       ("wash", ["#008000", 60]), ("set", ["2B", "#000000", 2]), ("stroke", ["#ffffff"]),
                       ("hatchStyle", ["HB", "#40bfbf", 1]), ("fill", ["#0a141e", 40])]
    res = runner.run(skeleton("colorMode(LAB);"))
    assert not res.ok and 'colorMode("lab") is not supported in the sandbox; use RGB, HSB or HSL' in res.reason
    for bad, shown in (("0", "0"), ("100, -1, 100", "-1"), ("'a'", '"a"'), ("Infinity", "Infinity"), ("NaN", "NaN")):
        res = runner.run(skeleton(f"colorMode(HSB, {bad}); brush.fill(10, 20, 30);"))
        assert not res.ok and f"colorMode(): each maximum must be a number above 0, got {shown}" in res.reason, res.reason



def test_p5s_clock_and_constants_give_one_program(runner):
    """hour(), year() and the rest, keyIsDown and p5's constants (ROUND, DEG_TO_RAD) were ReferenceErrors, a sketch
    error; a still render has no clock, so the time functions answer one fixed moment and a sketch one program."""
    body = ("strokeCap(ROUND); strokeJoin(MITER);"
            "brush.circle(hour() + minute(), second() + month() * 10, day() + (keyIsDown(65) ? 50 : 5));"
            "brush.circle(year() / 100, 90 * DEG_TO_RAD * RAD_TO_DEG, 3);")
    got = [a for m, a in calls(runner.run(skeleton(body))) if m == "circle"]
    assert got == [[12, 10, 6, 0], [20.26, pytest.approx(90), 3, 0]]


def test_p5s_number_formatting_and_page_state_run_in_the_sandbox(runner):
    """nf/nfc/nfp/nfs, splitTokens, isLooping, getTargetFrameRate, touches, displayWidth, getURLParams,
    performance.now and the accessibility describers were ReferenceErrors, a sketch error for valid p5 code; they
    answer as p5 does (their values are compared with p5 in Chromium in test_browser) and a still page's state."""
    body = ("const seed = int(getURLParams().seed || 7); brush.circle(seed, performance.now() + 1, 3);"
            "brush.seed(nf(3.14159, 2, 2) + '|' + nfc(12345.678, 1) + '|' + nfp(5, 2) + '|' + nfs(5, 2));"
            "brush.seed(splitTokens('a b,c', ' ,').join('/'));"
            "frameRate(24); brush.circle(getTargetFrameRate(), isLooping() ? 1 : 2, touches.length + 1);"
            "loop(); brush.circle(isLooping() ? 1 : 2, displayWidth / 10, 4);"
            "describeElement('sun', 'a yellow disc'); textOutput(); gridOutput();")
    got = [(m, a) for m, a in calls(runner.run(skeleton(body))) if m in ("circle", "seed")]
    assert got == [("circle", [7, 1, 3, 0]), ("seed", ["03.14|12,345.6|+05| 05"]), ("seed", ["a/b/c"]),
                   ("circle", [24, 2, 1, 0]), ("circle", [1, 60, 4, 0])]



def test_a_pressure_curve_written_as_a_function_is_sampled(runner):
    """p5.brush's README offers a brush's pressure as a function, ``(t) => value``, bare or as a custom curve with its
    min_max: the sandbox refused both ("unknown pressure key '__function__'"), the gate's 0 for documented p5.brush
    code. The curve is kept as its values at 101 even steps of t."""
    brush = "weight: 3, scatter: 0.5, sharpness: 0.5, opacity: 100"
    body = (f"brush.add('a', {{{brush}, pressure: (t) => 1 - t}});"
            f"brush.add('b', {{{brush}, pressure: {{mode: 'custom', min_max: [0.5, 1.5], curve: (t) => t * t}}}});")
    pa, pb = (a[1]["pressure"] for m, a in calls(runner.run(skeleton(body))) if m == "add")
    assert pa["type"] == "custom" and pa["min_max"] == [0, 1] and len(pa["samples"]) == 101
    assert (pa["samples"][0], pa["samples"][50], pa["samples"][-1]) == (1, 0.5, 0)
    assert pb["mode"] == "custom" and pb["min_max"] == [0.5, 1.5] and pb["samples"][10] == 0.01
    res = runner.run(skeleton(f"brush.add('c', {{{brush}, pressure: {{type: 'custom', curve: (t) => t}}}});"))
    assert not res.ok and "add: a custom pressure needs min_max: [lo, hi]" in res.reason, res.reason


def test_a_polygon_hatches_itself_and_refuses_what_it_cannot_do(runner):
    """``brush.polygon`` returns its Polygon; its hatch() is a hatchArray of it (under its own settings for one call,
    the hatch state put back after); its draw() strokes its sides; fill/wash/mass say what to write instead."""
    body = ("const p = brush.polygon([[1, 1], [50, 1], [50, 50]]); p.hatch(); brush.hatch(3, 30); p.hatch();"
            "p.hatch(9, 60); new brush.Polygon([[5, 5], [9, 5], [9, 9]]).hatch(2, 10); brush.noHatch();")
    got = [(m, a) for m, a in calls(runner.run(skeleton(body))) if m not in ("scaleBrushes", "background")]
    tri, small = [[1, 1], [50, 1], [50, 50]], [[5, 5], [9, 5], [9, 9]]
    assert got == [("polygon", [tri]), ("hatch", [3, 30, {}]), ("hatchArray", [[tri]]), ("hatch", [9, 60, {}]),
                   ("hatchArray", [[tri]]), ("hatch", [3, 30, {}]), ("hatch", [2, 10, {}]), ("hatchArray", [[small]]),
                   ("hatch", [3, 30, {}]), ("noHatch", [])]
    for m in ("fill", "wash", "mass"):
        res = runner.run(skeleton(f"brush.polygon([[1, 1], [50, 1], [50, 50]]).{m}();"))
        assert not res.ok and f"brush.Polygon's {m}() is not supported in the sandbox" in res.reason, res.reason
    res = runner.run(skeleton("brush.polygon([[1, 1], [50, 1], [50, 50]]).draw('HB', 'red', 2);"))
    assert not res.ok and "brush.Polygon's draw(brush, color, weight) is not supported" in res.reason, res.reason
    # draw(): its sides as lines of the current brush, none while no stroke is on
    drawn = runner.run(skeleton("const q = new brush.Polygon([[1, 1], [50, 1], [50, 50]]); brush.noStroke(); q.draw();"
                                "brush.set('HB', '#000', 1); q.draw();"))
    assert [(m, a) for m, a in calls(drawn) if m == "line"] == [
        ("line", [1, 1, 50, 1]), ("line", [50, 1, 50, 50]), ("line", [50, 50, 1, 1])]



def test_a_canvas_size_given_as_a_numeric_string_is_p5s_number(runner):
    """p5's canvas coerces createCanvas('400', '300'): the program is 400 x 300, not the 100 x 100 default."""
    res = runner.run("async function setup() { createCanvas('400', ' 300 ', WEBGL); }\n"
                     "function draw() { brush.circle(50, 50, 20); }")
    assert res.ok, res.violations
    assert (res.program.width, res.program.height) == (400, 300)


def test_saving_the_canvas_changes_nothing_in_the_program(runner):
    """A sketch that ends with saveCanvas() (a download in a browser, no pixel changed) was a "forbidden global", the
    gate's 0; it now makes the program the sketch makes without it."""
    body = "brush.circle(50, 50, 20);"
    plain_prog = runner.run(skeleton(body)).program
    for tail in ("saveCanvas('painting', 'png');", "save('x.png');", "saveFrames('f', 'png', 1, 1); saveGif('g', 1);"):
        res = runner.run(skeleton(body + tail))
        assert res.ok, res.reason
        assert res.program == plain_prog


def test_color_reads_every_css_name_and_functional_form_as_p5_does(runner):
    """``brush.fill('darkorange')`` worked but ``color('darkorange')`` threw "unknown colour" (the sandbox knew 40
    names), as did ``color('hsl(...)')`` and percentages: valid p5 code scored 0. Channels as p5.js 2.3.4 gives them in
    Chromium (checked there for all 148 names and these forms; p5 keeps them unrounded)."""
    forms = {"darkorange": [255, 140, 0, 255], " RebeccaPurple ": [102, 51, 153, 255],
             # an hsl() colour answers alpha() in HSL's maximum, 1
             "hsl(120, 50%, 50%)": [63.75, 191.25, 63.75, 1], "hsl(725deg, 30%, 90%)": [237.15, 223.125, 221.85, 1],
             "rgb(100%, 0%, 50%)": [255, 0, 127.5, 255], "rgba(10, 20, 30, 0.25)": [10, 20, 30, 63.75]}
    body = 'brush.set("2B", "#000", 1);' + "".join(
        f"{{ const c = color({s!r}); brush.line(red(c), green(c), blue(c), alpha(c)); }}" for s in forms)
    got = [args for m, args in calls(runner.run(skeleton(body))) if m == "line"]
    assert got == [pytest.approx(v) for v in forms.values()]
    for not_a_colour in ("constructor", "__proto__", "darkorang"):
        bad = runner.run(skeleton(f"brush.fill(color({not_a_colour!r})); brush.circle(5, 5, 5);"))
        assert not bad.ok and "unknown colour" in bad.reason, bad.reason


def test_transforms_are_applied_to_brush_coordinates(runner):
    got = [(m, a) for m, a in approx_calls(runner.run((SKETCHES / "transforms.js").read_text()))
           if m not in ("push", "pop")]  # p5's push()/pop(), recorded (p5.brush saves its state with them)
    assert got[0] == ("background", ["#ffffff"])
    # a line and a stroked rect under rotation keep their own coordinates after the frame p5.brush draws them
    # through; so do a circle and a flowLine under scale(2) (p5.brush draws their stamps twice the size, spacing and
    # scatter: through the frame); after them the canvas's own frame again
    assert got[2:5] == [("frame", [0, 1, -1, 0, 100, 50]), ("line", [0, 0, 10, 0]), ("rect", [0, 0, 10, 20, "corner"])]
    assert got[5:8] == [("frame", [2, 0, 0, 2, 200, 150]), ("circle", [10, 0, 5, 0]), ("flowLine", [0, 0, 10, 45])]
    assert got[8:10] == [("frame", [1, 0, 0, 1, 0, 0]), ("rect", [5, 5, 10, 10, "corner"])]


def test_radians_custom_field_custom_tip_and_queries(runner):
    res = runner.run((SKETCHES / "radians_tip_field.js").read_text())
    got = approx_calls(res)
    methods = [m for m, _ in got]
    assert "box" not in methods and "listFields" not in methods  # queries answer inside, not recorded
    field = dict(got)["addField"]
    assert field[0] == "diag" and len(field[1]) == 50 and all(v == 45 for col in field[1] for v in col)
    brush_def = dict(got)["add"]
    tip = brush_def[1]["tip"]
    assert len(tip) == 32 and 700 < sum(map(sum, tip)) < 900  # a disc filling the 100x100 tip space
    assert dict(got)["set"][0] == "dot"  # box() listed the new brush last
    assert dict(got)["move"] == [90, 50, 1] and dict(got)["endStroke"] == [180, 1]
    assert dict(got)["arc"] == [300, 300, 50, 0, 90]
    assert dict(got)["hatch"][:2] == [6, 45]
    assert dict(got)["circle"][2] == 8  # seven built-in fields + ours


def test_colours_and_background_forms(runner):
    got = calls(runner.run(skeleton(
        "brush.fill(color(255, 0, 0), 100); brush.circle(1, 1, 1);"
        "brush.fill(lerpColor(color('#000000'), color('#ffffff'), 0.5)); brush.circle(1, 1, 1);"
        "brush.stroke(red(color(10, 20, 30)), green('#102030'), blue(color('navy')));"
        "brush.set('2B', 'cornflowerblue', 2); background(10, 20, 30);")))
    assert ("fill", ["#ff0000", 100]) in got and ("fill", ["#808080", 150]) in got
    assert ("stroke", ["#0a2080"]) in got and ("set", ["2B", "#6495ed", 2]) in got
    assert got[-1] == ("background", ["#0a141e"])


def test_refresh_field_resamples_custom_field(runner):
    got = calls(runner.run(skeleton(
        "brush.addField('t', (t, f) => { for (const col of f) col.fill(10 * t); return f; });"
        "brush.field('t'); brush.refreshField(2);")))
    fields = [a for m, a in got if m == "addField"]
    assert fields[0][1][0][0] == 0 and fields[1][1][0][0] == 20
    assert got[-1] == ("refreshField", [2])


def test_refreshing_a_field_records_a_grid_only_where_the_custom_field_is_in_effect_and_changes(runner):
    """p5.brush makes its built-in fields at the first field call, over any same-named field added before: a
    refreshField then regenerates the built-in one, so the custom grid at t is no part of the painting (recorded,
    it flowed the line along the custom field). Added after they were made, the custom field is refreshed. A grid
    the field already holds (an exported field, the same at every t) is not recorded again: each export round
    trip added a copy."""
    fn = "(t, f) => { for (const c of f) c.fill(5 + t); return f; }"
    lost = calls(runner.run(skeleton(f"brush.addField('seabed', {fn}); brush.field('seabed'); brush.refreshField(3);"
                                     "brush.stroke('red'); brush.flowLine(100, 100, 200, 0);")))
    assert [m for m, _ in lost].count("addField") == 1 and ("refreshField", [3]) in lost
    kept = calls(runner.run(skeleton(f"brush.field('hand'); brush.addField('seabed', {fn}); brush.field('seabed');"
                                     "brush.refreshField(3);")))
    grids = [a[1] for m, a in kept if m == "addField"]
    assert [g[0][0] for g in grids] == [5, 8] and kept[-1] == ("refreshField", [3])
    same = calls(runner.run(skeleton("brush.addField('still', (t, f) => { for (const c of f) c.fill(7); return f; });"
                                     "brush.field('still'); brush.refreshField(3); brush.refreshField(4);")))[2:]
    assert [m for m, _ in same] == ["addField", "field", "refreshField", "refreshField"]


def test_a_seed_is_an_integer_of_any_kind_and_anything_else_is_the_callers_error(runner):
    """A numpy int killed the worker ("not JSON serializable": an infrastructure failure), NaN was V8's parse
    error, 1.5 the sketch's error (a gate 0), True and "7" were taken as 1 and 7."""
    import numpy as np

    src = skeleton("brush.fill('red', 100); brush.circle(random(600), 300, 50);")
    assert runner.run(src, seed=np.int64(3)).program == runner.run(src, seed=3).program
    for bad in (1.5, float("nan"), True, "7", None):
        with pytest.raises(ValueError, match=r"^run: seed must be an integer, got "):
            runner.run(src, seed=bad)
    assert runner.run(src, seed=4).ok  # the worker never saw them


def test_examples_pass(runner):
    files = sorted(EXAMPLES.glob("*.js"))
    assert len(files) >= 3
    for f in files:
        res = runner.run(f.read_text())
        assert res.ok, f"{f.name}: {res.reason}"
        assert res.program.summary()["shapes"] >= 5


# --------------------------------------------------------------------------- violations and errors


@pytest.mark.parametrize("body,fragment", [
    ("ellipse(1, 2, 3, 4);", "bare p5 drawing ellipse()"),
    ("rect(1, 2, 3, 4);", "bare p5 drawing rect() (only brush.* paints; use brush.rect())"),
    ("text('hi', 1, 2);", "bare p5 drawing text()"),
    ("brush.sparkle(1);", "unknown brush method brush.sparkle()"),
    ("brush.bleed(0.3);", "p5.brush 1.x; use brush.fillBleed()"),
    ("brush.setHatch('pen', 'red');", "use brush.hatchStyle()"),
    ("brush.segment(0, 10);", "use brush.move()"),
    ("fetch('http://example.com');", "forbidden global fetch"),
    ("globalThis['fe' + 'tch']('x');", "forbidden global fetch"),
    ("const w = new WebSocket('ws://x');", "forbidden global WebSocket"),
    ("require('fs');", "forbidden global require"),
    ("process.exit(1);", "forbidden global process"),
    ("setTimeout(() => brush.circle(1, 1, 1), 0);", "forbidden global setTimeout"),
    ("eval('1 + 1');", "forbidden global eval"),
    ("new Function('return 1')();", "forbidden global Function"),
    ("const F = (() => 1)['constr' + 'uctor']; F('return 1')();", "forbidden global Function"),
    ("import('x');", "forbidden import()"),
    ("const xhr = new XMLHttpRequest();", "forbidden global XMLHttpRequest"),
])
def test_violations_reject(runner, body, fragment):
    res = runner.run(skeleton(body))
    assert not res.ok and res.program is None
    assert any(fragment in v for v in res.violations), res.violations
    assert "\n" not in res.reason


def test_forbidden_globals_do_not_work_even_when_hidden(runner):
    # the static scan cannot see this name; the runtime stub still refuses and records it
    res = runner.run(skeleton("const k = ['fe', 'tch'].join(''); let r = 'none';"
                              "try { r = this[k]('x'); } catch (e) { r = 'blocked'; } brush.circle(1, 1, r === 'blocked' ? 5 : 9);"))
    assert "forbidden global fetch" in res.violations


def test_hf10_action_space(runner):
    res = runner.run(skeleton("brush.hatch(5, 45); brush.circle(1, 1, 1); brush.rect(0, 0, 5, 5);"), action_space="hf10")
    assert not res.ok
    assert res.violations == ["brush.hatch() is not in the hf10 action space",
                              "brush.rect() is not in the hf10 action space"]
    assert runner.run((SKETCHES / "flower_basic.js").read_text(), action_space="hf10").ok


@pytest.mark.parametrize("src,fragment", [
    ("brush.circle(1, 1, 1);", "missing skeleton: no setup() function"),
    ("async function setup() { createCanvas(600, 600, WEBGL); }", "missing skeleton: no draw() function"),
    ("async function setup() { createCanvas(600, 600); } function draw() {}", "createCanvas() needs WEBGL"),
    ("async function setup() {} function draw() {}", "never calls createCanvas"),
    # an out-of-range size kept p5's 100 x 100 default: the painting fell off it and scored as empty, unexplained
    ("async function setup() { createCanvas(9000, 9000, WEBGL); } function draw() {}",
     "createCanvas(9000, 9000): width and height must be numbers from 1 to 8192"),
    ("async function setup() { createCanvas(0, -5, WEBGL); } function draw() {}", "createCanvas(0, -5): width and"),
    # each side fits, the two together do not: refused by render only, after check and the sandbox passed it
    ("async function setup() { createCanvas(8192, 8192, WEBGL); } function draw() {}",
     "createCanvas(8192, 8192): at most 16777216 pixels (4096 x 4096), the most a canvas is painted at"),
    ("async function setup() { createCanvas('big', 600, WEBGL); } function draw() {}", 'createCanvas("big", 600)'),
    # instance mode was "TypeError: p5 is not a constructor"; it is named, and it is the one reason given
    ("new p5((p) => { p.setup = () => p.createCanvas(600, 600, p.WEBGL); p.draw = () => {}; });",
     "missing skeleton: p5 instance mode (new p5(sketch)) is not run here; write global setup() and draw()"),
])
def test_missing_skeleton(runner, src, fragment):
    res = runner.run(src)
    assert not res.ok and any(fragment in v for v in res.violations), res.violations
    if "instance mode" in fragment:
        assert res.reason == fragment and res.violations == [fragment]


@pytest.mark.parametrize("src,fragment", [
    ("async function setup( {", "syntax error: line 1: SyntaxError"),
    (skeleton("undefinedThing();"), "uncaught exception: line 11: ReferenceError: undefinedThing is not defined"),
    (skeleton("throw new Error('boom');"), "Error: boom"),
    (skeleton("brush.fill('notacolour');"), "invalid call: fill: unknown colour 'notacolour'"),
    (skeleton("brush.circle(1, 1, -5);"), "invalid call: circle: r must be in"),
    # a missing argument is named, under a transform too (it was "end must be a number, got None")
    (skeleton("rotate(10); brush.arc(100, 100, 50, 0);"), "invalid call: arc: missing argument 'end'"),
    (skeleton("brush.set('HB', 'black', 1); brush.flowLine(100, 100);"), "flowLine: missing argument 'length'"),
    (skeleton("brush.set('HB', 'black', 1); brush.beginStroke('curve', 5, 5); brush.move(30, 9); brush.endStroke();"),
     "invalid call: endStroke: missing argument 'angle'"),
    (skeleton("brush.vertex(1, 2);"), "invalid call: vertex: called outside beginShape()"),
    (skeleton("brush.set('nope', 'red');"), 'brush "nope" not found'),
    (skeleton("brush.add('img', {type: 'image', image: {src: 'a.png'}, weight: 1});"), "image brushes"),
    (skeleton("brush.add('t', {type: 'custom', weight: 1, tip: (g) => g.image(1, 2)});"), "custom brush tip: g.image()"),
    (skeleton("", "await Promise.reject(new Error('late'));"), "Error: late"),
    # JSON has no NaN or Infinity: the recorder marks them so the message names them, not 'got None'
    (skeleton("brush.circle(NaN, 50, 20);"), "invalid call: circle: x must be finite, got nan"),
    (skeleton("brush.circle(50, 50, Infinity);"), "invalid call: circle: r must be finite, got inf"),
    (skeleton("brush.polygon([[1, 2], [3, -Infinity], [5, 6]]);"), "points y must be finite, got -inf"),
    (skeleton("brush.circle({__aq_number__: 'NaN'}, 2, 3);"), "x must be finite, got nan"),  # a forged mark
    # an object with a key Object.prototype has (frozen) was "uncaught exception: TypeError: Cannot assign to read
    # only property 'toString' of object '#<Object>'": the recorder's copy of it failed, naming no call at all
    (skeleton("brush.fill({toString() { return '#f00'; }}, 200);"), "invalid call: fill: argument 1 must be a "
     "colour (hex string, CSS name, grey number or [r, g, b]), got an object (keys 'toString')"),
    (skeleton("brush.fill({toString: 5});"), "fill: argument 1 must be a colour (hex string, CSS name, grey number "
     "or [r, g, b]), got an object (keys 'toString')"),
    (skeleton("brush.stroke(function () { return 'red'; });"), "stroke: argument 1 must be a colour (hex string, "
     "CSS name, grey number or [r, g, b]), got a function"),
    (skeleton("brush.set('HB', {valueOf() { return 9; }}, 1);"), "invalid call: set: color must be a colour (hex "
     "string, CSS name, grey number or [r, g, b]), got an object (keys 'valueOf')"),
    (skeleton("brush.circle({valueOf() { return 3; }, constructor: 1}, 2, 3);"),
     "invalid call: circle: x must be a number, got an object (keys 'valueOf', 'constructor')"),
    # a key p5.brush does not read is dropped (``p5_clamps``); the brush still lacks what p5.brush needs
    (skeleton("brush.add('b', {type: 'marker', weight: 1, toString: 5});"), "add: brush 'b' needs pressure, scatter"),
])
def test_errors_reject_with_one_line(runner, src, fragment):
    res = runner.run(src)
    assert not res.ok and res.program is None and res.error
    assert fragment in res.error, res.error
    assert "\n" not in res.error


def test_objects_with_keys_object_prototype_has_are_copied_as_data(runner):
    """Where an object or a name is wanted, ``toString``, ``constructor`` and ``__proto__`` are keys like any other
    (the recorder copied objects into ``{}``, whose frozen prototype refused the first two and took the third as
    its prototype)."""
    got = calls(runner.run(skeleton(
        "brush.addField('toString', (t, f) => { for (const c of f) c.fill(t); return f; }); brush.field('toString');"
        "brush.refreshField(1);"
        "brush.add('constructor', {type: 'marker', weight: 2, pressure: [1, 1], scatter: 1, opacity: 150}); brush.set('constructor', 'red', 1);")))[2:]
    assert [m for m, _ in got] == ["addField", "field", "addField", "refreshField", "add", "set"]
    assert got[1] == ("field", ["toString"]) and got[5] == ("set", ["constructor", "#ff0000", 1])
    # `__proto__` is copied as a key, not taken as the copy's prototype: p5.brush reads no `rand` from it (JSON.parse
    # makes it an own key of an ordinary object), and the key, one p5.brush does not read, is dropped
    res = runner.run(skeleton("brush.hatch(5, 45, JSON.parse('{\"__proto__\": {\"rand\": 0.5}}'));"))
    assert calls(res)[-1] == ("hatch", [5, 45, {}])


def test_tampering_cannot_hide_calls(runner):
    res = runner.run(skeleton(
        "Array.prototype.push = function () {}; JSON.stringify = () => '{}';"
        "try { Object.defineProperty(brush, 'circle', {value: () => 0}); } catch (e) {}"
        "brush.circle = () => 0; brush.circle(10, 10, 5);"
        "try { Object.prototype.toJSON = () => 1; } catch (e) {}"
        "ellipse(1, 1, 1);"))
    assert "bare p5 drawing ellipse() (only brush.* paints; not allowed)" in res.violations
    res2 = runner.run(skeleton(
        "Array.prototype.push = function () {}; brush.circle = () => 0; brush.circle(10, 10, 5);"))
    assert calls(res2)[-1] == ("circle", [10, 10, 5, 0])


def test_host_api_is_not_for_sketches(runner):
    res = runner.run(skeleton("this['__aq_' + 'host'].init('{}');"))
    assert not res.ok and "forbidden: sketches may not call the sandbox host API" in res.violations


def test_async_setup_with_await_runs_to_completion(runner):
    got = calls(runner.run(skeleton("brush.circle(5, 5, 5);", "await null; brush.seed(7);")))
    assert ("seed", [7]) in got and got[-1] == ("circle", [5, 5, 5, 0])


def test_static_scan_ignores_comments_and_strings():
    assert static_violations("// fetch('x')\nconst s = 'eval me'; /* require */") == []
    assert static_violations("fetch('x')") == ["forbidden global fetch"]


def test_execute_in_process_matches_worker(runner):
    src = (SKETCHES / "loops_random.js").read_text()
    assert execute(src, seed=4).program == runner.run(src, seed=4).program


# --------------------------------------------------------------------------- limits


def timed(runner, src, limits):
    t0 = time.monotonic()
    res = runner.run(src, limits=limits)
    return res, time.monotonic() - t0


def test_limit_source_size(runner):
    limits = SandboxLimits(max_source_bytes=1000)
    res = runner.run(skeleton("// " + "x" * 2000), limits=limits)
    assert res.limit == "source" and "source limit" in res.error and not res.ok


def test_limit_infinite_loop_then_next_sketch_runs(runner):
    limits = SandboxLimits(time_s=1.5)
    res, took = timed(runner, skeleton("while (true) {}"), limits)
    assert res.limit == "time" and res.error.startswith("time limit") and took < limits.time_s + 1
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_limit_hang_after_await_kills_worker(runner):
    limits = SandboxLimits(time_s=1.0)
    res, took = timed(runner, skeleton("", "await null; while (true) {}"), limits)
    assert res.limit == "time" and took < limits.time_s + 1
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_limit_memory_bomb_then_next_sketch_runs(runner):
    limits = SandboxLimits(heap_mb=64)
    res, took = timed(runner, skeleton("const a = []; while (true) a.push(new Array(100000).fill(1.5));"), limits)
    assert res.limit == "heap" and "heap limit" in res.error and took < limits.time_s + 1
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_limit_deep_recursion(runner):
    res, took = timed(runner, skeleton("function f(n) { return f(n + 1) + 1; } f(0);"), SandboxLimits())
    assert not res.ok and "Maximum call stack size exceeded" in res.error and took < 5 + 1
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_limit_ten_million_calls(runner):
    limits = SandboxLimits()
    res, took = timed(runner, skeleton("for (let i = 0; i < 1e7; i++) brush.noStroke();"), limits)
    assert res.limit == "commands" and res.error == "command limit: more than 200000 brush calls"
    assert took < limits.time_s + 1
    # catching the limit error does not let a sketch go on recording
    res2, took2 = timed(runner, skeleton("for (let i = 0; i < 1e7; i++) try { brush.noStroke(); } catch (e) {}"),
                        SandboxLimits(time_s=2, max_commands=1000))
    assert res2.limit == "commands" and took2 < 2 + 1
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_calls_too_big_to_read_back_are_the_sketchs_limit(runner):
    """One 1 MB string passed to 600 calls is 1 MB of heap but 600 MB of recorded arguments: V8 cannot write them
    as one string (RangeError: Invalid string length). That was a SandboxError, an infrastructure failure (reward
    None) caused by the sketch; it is the sketch's heap limit, and the next sketch runs."""
    runner.warm()
    res, took = timed(runner, skeleton("const s = 'x'.repeat(1 << 20); for (let i = 0; i < 600; i++) brush.fill(s);"),
                      SandboxLimits())
    assert res.limit == "heap" and res.error.startswith("heap limit") and "read back" in res.error, res.error
    assert "\n" not in res.error and len(res.error) < 300 and took < 5 + 1
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_bad_inputs_are_results_not_exceptions(runner):
    assert "sketch must be text" in runner.run(b"bytes").error
    assert "unknown action space" in runner.run("x", action_space="nope").error


def test_sketch_may_declare_helpers_named_like_p5_or_web_apis(runner):
    src = ("let scale = 2;\nconst palette = ['#ff0000'];\nfunction process(x) { return x * scale; }\n"
           + skeleton("brush.circle(process(10), 10, 5);"))
    assert calls(runner.run(src))[-1] == ("circle", [20, 10, 5, 0])
    assert not runner.run(skeleton("let eval = 1;")).ok


def test_query_helpers_obey_the_action_space(runner):
    res = runner.run(skeleton("const b = brush.box(); brush.circle(1, 1, 1);"), action_space="hf10")
    assert res.violations == ["brush.box() is not in the hf10 action space"]
    assert runner.run(skeleton("const b = brush.box(); brush.circle(1, 1, 1);")).ok


def test_math_random_and_clock_are_seeded(runner):
    src = skeleton("brush.circle(1 + Math.random() * 100, 1 + Date.now() + new Date().getTime(), 5);")
    a, b, c = (calls(runner.run(src, seed=s))[-1][1] for s in (1, 1, 2))
    assert a == b and a != c and a[1] == 1


def test_randomseed_reseeds_p5_brush_where_the_sketch_calls_it(runner):
    """p5.brush's p5 add-on hooks randomSeed/noiseSeed: a leading whole-number randomSeed becomes the program's
    seed, a later one (or a text seed) is recorded as the brush.seed it amounts to, in every action space."""
    lead = runner.run("function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\n"
                      "function draw() { translate(-width / 2, -height / 2); randomSeed(433); noiseSeed(433);\n"
                      "  brush.circle(5, 5, 5); }\n", seed=1)
    assert lead.program.seed == 433 and [m for m, _ in calls(lead)] == ["circle"]
    later = runner.run(skeleton("", 'background("#fff"); randomSeed(9); noiseSeed(4); brush.circle(5, 5, 5);'),
                       action_space="hf10", seed=1)
    assert later.ok, later.reason
    assert later.program.seed == 1 and ("seed", [9]) in calls(later) and ("noiseSeed", [4]) in calls(later)
    text = runner.run(skeleton("", 'randomSeed("abc"); brush.circle(5, 5, 5);'), seed=1)
    assert text.program.seed == 1 and ("seed", ["abc"]) in calls(text)


def test_a_v8_out_of_memory_abort_is_the_sketchs_heap_limit(runner):
    """Past V8's own heap ceiling (~1.4 GB, under a heap limit set above it) V8 aborts the worker (SIGTRAP):
    that death is the sketch's doing, a heap limit, and the next sketch runs on a fresh worker."""
    res = runner.run(skeleton("const a = []; while (true) a.push(new Array(100000).fill(1.5));"),
                     limits=SandboxLimits(heap_mb=4096))
    assert res.limit == "heap" and res.error.startswith("heap limit") and "worker was replaced" in res.error
    assert runner.run((SKETCHES / "flower_basic.js").read_text()).ok


def test_a_worker_killed_from_outside_is_an_infrastructure_failure_not_the_heap_limit():
    """Every death of the worker mid-sketch was reported as "heap limit" (a gate 0, the model blamed): one killed
    from outside (an operator, the OOM killer) is ours, reward None with the reason."""
    import os
    import signal
    import threading

    from aquarelle.brush import sandbox
    from aquarelle.env.environment import WatercolourEnvironment
    from aquarelle.env.models import WatercolourAction

    run_sketch((SKETCHES / "flower_basic.js").read_text())  # the module's worker, warm
    env = WatercolourEnvironment()  # in-process: its sketches go to that worker
    env.reset(mode="sketch")
    out = {}
    t = threading.Thread(target=lambda: out.update(obs=env.step(WatercolourAction(sketch=skeleton("while (true) {}")))))
    t.start()
    time.sleep(1.0)  # the loop is running (the sandbox's limit is 5 s)
    os.kill(sandbox._DEFAULT._proc.pid, signal.SIGKILL)
    t.join(60)
    obs = out["obs"]
    assert obs.done and obs.reward is None, obs
    assert len(obs.errors) == 1 and obs.errors[0].startswith("infrastructure: SandboxError: sandbox worker died"), obs.errors
    assert "killed by SIGKILL" in obs.errors[0]
    assert "No reward" in obs.text
    assert run_sketch((SKETCHES / "flower_basic.js").read_text()).ok  # a fresh worker


def test_the_callers_limits_are_checked_not_blamed_on_the_sketch(runner):
    """``time_s=-1`` was the sketch's "ran longer than -1 s" (its gate 0), NaN a bare int() error, a dict of limits
    an AttributeError."""
    for kw in ({"time_s": -1}, {"time_s": float("nan")}, {"heap_mb": 0}, {"max_commands": True}):
        name = next(iter(kw))
        with pytest.raises(ValueError, match=rf"^SandboxLimits\.{name} must be a finite number > 0, got "):
            SandboxLimits(**kw)
    with pytest.raises(TypeError, match="^run: limits must be a SandboxLimits, got dict"):
        runner.run(skeleton("brush.circle(1, 1, 1);"), limits={"time_s": 1})
