"""The native renderer: determinism, where each primitive paints, state semantics, bad input, coverage, CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aquarelle.brush import Program
from aquarelle.brush.commands import CommandError
from aquarelle.render import background_of, render_program
from aquarelle.render.coverage import COVERAGE_TOLERANCE, coverage
from aquarelle.render.errors import RenderError
from aquarelle.render.native import Budget, render, render_full

W = 200


def prog(*calls, **kw) -> Program:
    kw.setdefault("width", W)
    kw.setdefault("height", W)
    return Program.from_calls(list(calls), **kw)


def painted(img, bg=(255, 255, 255)) -> np.ndarray:
    return np.abs(img.astype(int) - np.array(bg)).max(axis=2) > COVERAGE_TOLERANCE


def box_share(img, x0, y0, x1, y1, bg=(255, 255, 255)) -> float:
    """Share of the painted pixels that lie inside the box."""
    m = painted(img, bg)
    total = m.sum()
    return float(m[y0:y1, x0:x1].sum()) / max(total, 1)


FILL = [("noStroke", []), ("fill", ["#d7263d", 150])]
PEN = [("set", ["HB", "#202020", 2])]


# ----------------------------------------------------------------- coverage


def test_coverage_of_a_fresh_canvas_is_exactly_zero():
    for p in (prog(), prog(("background", ["#f5e6c8"]))):
        img = render(p)
        assert img.shape == (W, W, 3) and img.dtype == np.uint8
        assert coverage(img, background_of(p)) == 0.0
    assert background_of(prog(("background", ["#102030"]), ("background", ["#f5e6c8"]))) == (0xF5, 0xE6, 0xC8)


def test_coverage_definition_counts_pixels_beyond_the_tolerance():
    img = np.full((10, 10, 3), 255, np.uint8)
    img[0, 0] = (255 - COVERAGE_TOLERANCE, 255, 255)  # at the tolerance: background
    img[1, :5] = (255, 255 - COVERAGE_TOLERANCE - 1, 255)  # beyond: painted
    assert coverage(img) == pytest.approx(5 / 100)
    with pytest.raises(ValueError):
        coverage(np.zeros((4, 4)))
    # a background may be written as a sketch writes a colour ("#fff..." was read as the numbers "#ff")
    cream = np.full((4, 4, 3), (255, 252, 235), np.uint8)
    assert coverage(cream, "#fffceb") == coverage(cream, (255, 252, 235)) == 0.0
    assert coverage(cream, "white") == 1.0


# ----------------------------------------------------------------- determinism


def test_same_program_and_seed_give_identical_pixels_and_another_seed_differs():
    p = prog(*FILL, ("circle", [100, 100, 50]), *PEN, ("line", [10, 10, 190, 150]))
    a, b = render(p, seed=3), render(p, seed=3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, render(p, seed=4))
    # the program's seed is the default, and a seed() call inside it reseeds
    ps = p.model_copy(update={"seed": 3})
    assert np.array_equal(render(ps), a)
    with_seed = prog(("seed", [7]), *FILL, ("circle", [100, 100, 50]))
    assert np.array_equal(render(with_seed, seed=1), render(with_seed, seed=2))


# ----------------------------------------------------------------- primitives


def test_watercolour_fill_paints_the_circle_in_its_colour():
    img = render(prog(*FILL, ("circle", [100, 100, 40])))
    m = painted(img)
    assert m[65:135, 65:135].mean() > 0.5  # the disc is painted (default texture 0.8 leaves pale holes)
    assert box_share(img, 45, 45, 155, 155) > 0.97  # bleed stays near the shape
    assert m[:20].sum() == 0 and m[:, :20].sum() == 0
    px = img[m].astype(int).mean(axis=0)
    assert px[0] > px[1] + 15 and px[0] > px[2] + 10  # red, mixed toward the paper


def test_a_bordered_fill_past_the_canvas_paints_no_frame_at_the_canvas_edge():
    """Each layer polygon's outline (width size / 25 x border) is read from the cover count's gradient. The
    count stopped at the canvas's edge, as if every polygon had an edge there, so a shape running past the
    canvas got a dark outline along it that p5.brush does not paint (mean 215 against 240 in the outer 2 px)."""
    img = render(prog(("noStroke", []), ("fill", ["#3355cc", 120]), ("fillTexture", [0.0, 1.0]),
                      ("rect", [-60, -60, 720, 720]), width=600, height=600)).astype(float).mean(axis=2)
    ring = np.ones(img.shape, bool)
    ring[2:-2, 2:-2] = False
    inner = img[20:-20, 20:-20].mean()
    assert abs(img[ring].mean() - inner) < 3.0


@pytest.mark.parametrize("half", [81, 100])
def test_a_miter_that_would_reach_the_canvas_from_a_polygon_past_it_paints_nothing(half):
    """A sharp polygon 40 px past the canvas's edge, its outline 18 px wide: its miter tip would reach 30 px onto
    the canvas, but p5.brush composites only the polygon's box widened by the outline (measured: nothing painted).
    Natively the tip is cut there; before the cut, the tip reached the canvas with no span in the cover count's
    margin, and the fill raised ``negative dimensions not allowed``."""
    img = render(prog(("noStroke", []), ("fillTexture", [0.0, 1.0]), ("fillBleed", [0.0]), ("fill", ["#2040a0", 200]),
                      ("polygon", [[[-700, 300 - half], [-40, 300], [-700, 300 + half]]]), width=600, height=600))
    assert not (img != 255).any()


def test_fill_spectral_mix_turns_blue_over_yellow_greenish():
    img = render(prog(("noStroke", []), ("fill", ["#f2d600", 255]), ("rect", [20, 20, 160, 160]),
                      ("fill", ["#1f4fd6", 255]), ("rect", [60, 60, 80, 80])))
    r, g, b = img[95:105, 95:105].reshape(-1, 3).mean(axis=0)
    assert g > r and g > 60  # Kubelka-Munk, not a grey average


@pytest.mark.parametrize("calls,box", [
    ([("line", [20, 100, 180, 100])], (15, 85, 185, 115)),
    ([("flowLine", [30, 100, 140, 0])], (25, 80, 180, 120)),
    ([("field", ["curved"]), ("flowLine", [30, 100, 120, 0])], (0, 0, 200, 200)),
    ([("spline", [[[20, 150], [100, 40], [180, 150]], 0.5])], (10, 30, 190, 160)),
    ([("beginStroke", ["curve", 30, 100]), ("move", [0, 70, 1]), ("move", [45, 50, 1]), ("endStroke", [90, 1])],
     (20, 20, 160, 110)),
    ([("rect", [50, 60, 100, 80])], (45, 55, 155, 145)),
    ([("circle", [100, 100, 50, 0.5])], (40, 40, 160, 160)),
    ([("arc", [100, 100, 60, 0, 90])], (95, 35, 165, 105)),
    ([("beginShape", [0.4]), ("vertex", [40, 40]), ("vertex", [160, 50]), ("vertex", [150, 160]),
      ("endShape", [True])], (30, 30, 170, 170)),
    ([("polygon", [[[40, 40], [160, 60], [100, 170]]])], (35, 35, 165, 175)),
])
def test_each_stroked_primitive_paints_where_it_should(calls, box):
    img = render(prog(*PEN, *calls))
    cov = coverage(img)
    assert cov > 0.002, cov
    assert box_share(img, *box) > 0.98
    dark = img[painted(img)].astype(int).mean()
    assert dark < 200  # the pencil is dark grey


def test_arc_without_sweep_and_stroke_with_no_segments_paint_nothing_with_a_warning():
    r = render_full(prog(*PEN, ("arc", [100, 100, 50, 30, 30])))
    assert coverage(r.image) == 0.0 and any("arc" in w for w in r.warnings)


@pytest.mark.parametrize("brush", ["pen", "rotring", "2B", "HB", "2H", "cpencil", "pastel", "crayon", "charcoal",
                                   "spray", "marker"])
def test_every_builtin_brush_paints_a_line(brush):
    img = render(prog(("set", [brush, "#2a4d9b", 3]), ("line", [20, 100, 180, 100])))
    m = painted(img)
    assert m.sum() > 40, brush
    assert box_share(img, 0, 60, 200, 140) > 0.95
    px = img[m].astype(int).mean(axis=0)
    assert px[2] >= px[0], (brush, px)  # bluish, not another colour


def test_custom_brush_from_add_and_custom_field_paint():
    tip = [[1.0 if (i - 3.5) ** 2 + (j - 3.5) ** 2 < 10 else 0.0 for j in range(8)] for i in range(8)]
    img = render(prog(("add", ["blob", {"type": "custom", "weight": 6, "scatter": 0.5, "opacity": 60, "spacing": 1,
                                        "tip": tip, "pressure": [1, 1]}]),
                      ("set", ["blob", "#8a2be2", 1]), ("line", [30, 100, 170, 100])))
    assert painted(img).sum() > 300 and box_share(img, 20, 80, 180, 120) > 0.97
    down = [[90.0] * 200 for _ in range(200)]  # every cell points down (p5.brush steps by field - heading)
    img2 = render(prog(*PEN, ("addField", ["down", down]), ("field", ["down"]), ("flowLine", [100, 20, 150, 0])))
    m = painted(img2)
    ys, xs = np.nonzero(m)
    assert ys.max() - ys.min() > 100 and xs.max() - xs.min() < 30  # the field turned the line downwards


def test_hatch_wash_and_mass_paint_inside_their_shapes():
    h = render(prog(("noStroke", []), ("hatch", [6, 45]), ("hatchStyle", ["HB", "#333333", 1]),
                    ("rect", [50, 50, 100, 100])))
    assert coverage(h) > 0.03 and box_share(h, 40, 40, 160, 160) > 0.97
    w = render(prog(("noStroke", []), ("wash", ["#3366cc", 200]), ("rect", [50, 50, 100, 100])))
    m = painted(w)
    assert m[60:140, 60:140].mean() > 0.99 and m.sum() < 1.15 * 100 * 100
    ms = render(prog(("noStroke", []), ("mass", ["2B", "#aa3300", {"strength": 1}]),
                     ("circle", [100, 100, 60])))
    assert coverage(ms) > 0.02 and box_share(ms, 25, 25, 175, 175) > 0.95
    ha = render(prog(("hatchStyle", ["2H", "#222222", 1]), ("hatch", [5, 0]),
                     ("hatchArray", [[[[20, 20], [80, 20], [80, 80], [20, 80]]]])))
    assert coverage(ha) > 0.01 and box_share(ha, 15, 15, 85, 85) > 0.97
    ma = render(prog(("mass", ["HB", "#004400", {}]), ("massArray", [[[[120, 120], [180, 120], [150, 180]]]])))
    assert coverage(ma) > 0.005 and box_share(ma, 105, 105, 195, 195) > 0.95


def test_clip_is_a_no_op_as_in_p5_brush_and_says_so_and_background_paints_the_canvas():
    """p5.brush 2.2.2's clip() returns its region and does nothing else: the browser, and an exported sketch,
    paint the whole line, so the native renderer does too, with a warning."""
    from aquarelle.render.native import render_full

    res = render_full(prog(*PEN, ("clip", [[0, 0, 100, 200]]), ("line", [20, 100, 180, 100])))
    m = painted(res.image)
    assert m[:, :95].sum() > 50 and m[:, 105:].sum() > 50
    assert np.array_equal(res.image, render(prog(*PEN, ("line", [20, 100, 180, 100]))))
    assert any(w.startswith("clip: p5.brush 2.2.2 does not clip") for w in res.warnings)
    bg = render(prog(("background", ["#203040"])))
    assert (bg == np.array([0x20, 0x30, 0x40], np.uint8)).all()


# ----------------------------------------------------------------- state


def test_fill_stays_on_until_nofill_and_nostroke_stops_strokes():
    img = render(prog(*FILL, ("circle", [50, 50, 25]), ("circle", [150, 50, 25]), ("noFill", []),
                      ("circle", [100, 150, 25])))
    m = painted(img)
    assert m[40:60, 40:60].mean() > 0.8 and m[40:60, 140:160].mean() > 0.8
    assert m[120:180, 70:130].sum() == 0  # after noFill, with no stroke, nothing is painted
    s = render(prog(*PEN, ("noStroke", []), ("rect", [20, 20, 100, 100])))
    assert coverage(s) == 0.0
    with pytest.raises(RenderError, match="line: no brush"):  # p5.brush throws for a line with stroke off
        render(prog(*PEN, ("noStroke", []), ("line", [20, 100, 180, 100])))
    t = render(prog(*PEN, ("fill", ["#00aa00", 150]), ("rect", [40, 40, 120, 120])))
    assert painted(t)[90:110, 90:110].mean() > 0.9 and painted(t)[38:42, 60:140].mean() > 0.5  # fill and outline


def test_the_first_stroke_after_a_fill_loses_the_pending_wash():
    """p5.brush's first-stroke quirk (``Compositor.begin``; checked against Chromium in the browser tests): a
    watercolour fill, which composites itself, counts as the fill-mask composite before the first stroke, so the
    wash pending at that stroke is never painted. Without the fill, the same wash is painted."""
    wash = [("wash", ["#2979ff", 255]), ("rect", [120, 20, 60, 60]), ("noWash", [])]
    line = [("set", ["marker", "#000000", 2]), ("line", [20, 180, 180, 180]), ("noStroke", [])]
    fill = [*FILL, ("rect", [20, 20, 60, 60]), ("noFill", [])]
    after_fill = painted(render(prog(*fill, *wash, *line)))
    alone = painted(render(prog(("noStroke", []), *wash, *line)))
    assert after_fill[40:60, 40:60].mean() > 0.5  # the fill (its texture leaves holes)
    assert after_fill[40:60, 140:160].sum() == 0 and alone[40:60, 140:160].mean() > 0.8  # the wash: lost, painted
    assert after_fill[175:185, 60:140].any() and alone[175:185, 60:140].any()  # the line, both times


def test_scalebrushes_widens_strokes():
    thin = painted(render(prog(("set", ["marker", "#000000", 2]), ("line", [20, 100, 180, 100])))).sum()
    wide = painted(render(prog(("scaleBrushes", [3]), ("set", ["marker", "#000000", 2]),
                               ("line", [20, 100, 180, 100])))).sum()
    assert wide > 2 * thin


# ----------------------------------------------------------------- bad input and sizes


def test_floods_fail_fast_with_render_error():
    calls = [*FILL] + [("circle", [100, 100, 80])] * 60
    with pytest.raises(RenderError, match="budget: 60 watercolour fills"):  # refused before painting anything
        render_full(prog(*calls), budget=Budget(fills=50))
    with pytest.raises(RenderError, match="budget"):  # the area budget fires while painting
        render_full(prog(*calls), budget=Budget(fill_area=10))
    lines = [*PEN] + [("line", [0, 0, 200, 200])] * 40
    with pytest.raises(RenderError, match="budget"):
        render_full(prog(*lines), budget=Budget(steps=50_000))


def test_what_p5_brush_never_finishes_is_refused_not_painted():
    """Measured in Chromium (p5.brush 2.2.2, seeds 7 and 11), each painted here, each a hang or a crash there:
    a mass whose hatch spacing (1.6 x scatter x 0.65-0.85, less 0.4 x gradient) comes out 0 or below scans
    forever (a custom brush without scatter, the marker at gradient 1); a spray stamps ceil(grain / pressure) dots
    a step, endless at pressure 0; a brush of spacing 0 takes length / 0 steps (out of memory), and one scaled to
    1e-5 some 30 million. A scale of 1e-3 paints in both."""
    ink = ("add", ["ink", {"weight": 1, "pressure": [1, 1], "opacity": 200}])
    mass_cases = [
        [ink, ("noStroke", []), ("mass", ["ink", "#333333"]), ("circle", [100, 100, 60])],
        [("noStroke", []), ("mass", ["marker", "#333333", {"gradient": 1}]), ("rect", [40, 40, 100, 80])],
    ]
    for calls in mass_cases:
        with pytest.raises(RenderError, match="mass: its hatch spacing comes out .* never finishes the mass"):
            render(prog(*calls))
    assert coverage(render(prog(("noStroke", []), ("mass", ["marker", "#333333"]), ("circle", [100, 100, 60])))) > 0.05
    spray = [("set", ["spray", "#2050c0", 3]), ("beginStroke", ["curve", 20, 100]), ("move", [0, 150, 0]),
             ("endStroke", [0, 1])]
    with pytest.raises(RenderError, match="over the render budget"):
        render(prog(*spray))
    spray[2] = ("move", [0, 150, 0.5])
    assert coverage(render(prog(*spray))) > 0.005
    fine = [("add", ["fine", {"weight": 2, "spacing": 0, "pressure": [1, 1], "opacity": 200}]),
            ("set", ["fine", "#000000", 2]), ("line", [10, 50, 190, 80])]
    with pytest.raises(RenderError, match='brush "fine": spacing 0 makes every stroke endless'):
        render(prog(*fine))
    line = [("set", ["HB", "#202020", 2]), ("line", [10, 100, 190, 110])]
    with pytest.raises(RenderError, match="over the render budget"):
        render(prog(("scaleBrushes", [1e-4]), *line))
    assert coverage(render(prog(("scaleBrushes", [1e-3]), *line))) > 0.002  # a thin line, 180 px


def test_a_dense_mass_that_p5_brush_paints_is_within_the_budget():
    """A pastel mass over most of the canvas walks 6.5 million brush steps (dense hatching with a wide brush takes
    6-10 million); p5.brush paints it (in 3-9 s) and so must we (0.3-0.7 s): the step budget was 6 million, so a
    policy's dense mass or hatch was a render error, the gate's 0, for a painting the browser makes."""
    p = Program.from_calls([("noFill", []), ("noStroke", []), ("mass", ["pastel", "#f3f582", {"strength": 1.0}]),
                            ("polygon", [[[210, 249], [333, 28], [718, 767], [169, 726], [99, 798]]])],
                           width=600, height=600, seed=1242149853)
    res = render_full(p)
    assert res.stats["steps"] > 6_000_000 and coverage(res.image) > 0.4


def test_stroke_stamps_are_budgeted_before_they_are_made():
    """Steps alone do not bound a stroke: a marker of weight 1e5 (the largest validation lets through) covers the canvas at every step, and a custom
    spray's grain sets the dots per step. Both are refused by the stamp budget before the stroke is stamped (or
    its stamps allocated), not after seconds of work."""
    with pytest.raises(RenderError, match=r"budget: more than 6000 canvases of brush stamps"):
        render_full(prog(("set", ["marker", "#000000", 1e5]), ("line", [0, 0, 200, 200])))  # the default budget
    spray = ("add", ["fog", {"type": "spray", "weight": 1, "scatter": 5, "sharpness": 1, "grain": 1e9,
                             "opacity": 100, "spacing": 1}])
    with pytest.raises(RenderError, match=r"budget: more than 1e\+07 brush stamps"):
        render_full(prog(spray, ("set", ["fog", "#000000", 1]), ("line", [0, 0, 200, 200])))
    # an ordinary program reports what it stamped, and a budget below that refuses it
    lines = [("set", ["marker", "#202020", 3]), *[("line", [10, 10 + 20 * i, 190, 30 + 20 * i]) for i in range(8)]]
    used = render_full(prog(*lines)).stats
    assert used["stamps"] > 1000 and 1.0 < used["stroke_area"] < 100.0
    with pytest.raises(RenderError, match="canvases of brush stamps"):
        render_full(prog(*lines), budget=Budget(stroke_area=used["stroke_area"] / 2))
    with pytest.raises(RenderError, match="more than 500 brush stamps"):
        render_full(prog(*lines), budget=Budget(stamps=500))


def test_composites_are_budgeted_by_the_mask_area_they_scan():
    """A composite scans its mask's whole dirty box, however little is painted in it: lines of a sparse brush
    in alternating colours each flushed a canvas-wide box (19,000 of them took 7 s within the op budget). The box
    is charged before it is composited."""
    sparse = ("add", ["sparse", {"type": "marker", "weight": 2, "spacing": 40, "opacity": 100}])
    lines = [sparse] + [c for i in range(4) for c in (("set", ["sparse", ("#d7263d", "#2979ff")[i % 2], 1]),
                                                        ("line", [0, 0, W, W]))]
    r = render_full(prog(*lines))
    one = render_full(prog(*lines[:3]))  # one colour: one composite at the end of the frame
    assert 0.9 < one.stats["composite_area"] <= 1.0  # a few stamps along the diagonal: a box over the canvas
    assert r.stats["composite_area"] == pytest.approx(4 * one.stats["composite_area"])  # a flush per colour
    with pytest.raises(RenderError, match="budget: more than 3 canvases of mask composited"):
        render_full(prog(*lines), budget=Budget(composite_area=3))
    flood = [sparse] + [c for i in range(400) for c in (("set", ["sparse", ("#d7263d", "#2979ff")[i % 2], 1]),
                                                          ("line", [0, 0, W, W]))]
    with pytest.raises(RenderError, match="more than 300 canvases of mask composited"):
        render_full(prog(*flood))  # the default budget


def test_a_painter_is_freed_when_its_render_ends():
    """A render's painter holds ~4 MB of canvas and masks per 600 px; the compositor's budget charge must not refer
    back to it (a reference cycle), or painters would wait for the cycle collector, piling up between renders."""
    import gc
    import weakref

    from aquarelle.render.native import _Painter

    gc.disable()
    try:
        painter = _Painter(W, W, (255, 255, 255), 1, Budget())
        ref = weakref.ref(painter)
        del painter
        assert ref() is None
    finally:
        gc.enable()


def test_the_budgets_share_one_allowance():
    """Each budget alone allows seconds of work at most, but a program near several at once added them up: the
    fractions of each budget a program uses are summed (``share``) and capped too."""
    fills = [*FILL, *[("circle", [40 + 40 * i, 100, 30, 0]) for i in range(3)]]
    r = render_full(prog(*fills))
    b = Budget()
    assert r.stats["share"] == pytest.approx(sum(v / getattr(b, k) for k, v in r.stats.items() if k != "share"))
    tight = Budget(fills=4, fill_area=r.stats["fill_area"] * 4 / 3)  # each within its budget, three quarters used
    assert render_full(prog(*fills), budget=tight).stats["share"] > 1.5
    with pytest.raises(RenderError, match=r"more than 1\.2 budgets' worth of work in all"):
        render_full(prog(*fills), budget=Budget(fills=4, fill_area=tight.fill_area, share=1.2))


def test_outlines_are_budgeted_by_the_rows_their_edges_cross():
    """A fill's cost grows with the rows its edges cross (each of its ~175 grown layers rasterises them) and with
    its vertices, a wash's with its rows, and a mass checks every hatch line against every vertex: a star of
    thousands of long edges fitted every count and box budget and took seconds a shape (150 such fills fitted the
    fill-area budget). These are charged before anything is painted."""
    square = [[10, 10], [190, 10], [190, 190], [10, -500]]  # rows off the canvas are not counted
    r = render_full(prog(*FILL, ("polygon", [square]), ("noFill", []), ("wash", ["#2979ff", 120]),
                         ("polygon", [square])))
    assert r.stats["fill_rows"] == pytest.approx(1.9) and r.stats["wash_rows"] == pytest.approx(1.9)
    assert r.stats["fill_vertices"] == 4
    star = [[100 + 95 * math.cos(i * 2.5), 100 + 95 * math.sin(i * 2.5)] for i in range(400)]
    rows = sum(abs(star[i][1] - star[i - 1][1]) for i in range(400)) / W
    with pytest.raises(RenderError, match=f"more than {int(rows) - 1} canvas heights of fill edges"):
        render_full(prog(*FILL, ("polygon", [star])), budget=Budget(fill_rows=int(rows) - 1))
    with pytest.raises(RenderError, match="more than 399 fill vertices"):
        render_full(prog(*FILL, ("polygon", [star])), budget=Budget(fill_vertices=399))
    with pytest.raises(RenderError, match="canvas heights of wash edges"):
        render_full(prog(("wash", ["#2979ff", 120]), ("polygon", [star])), budget=Budget(wash_rows=int(rows) - 1))
    mass = ("mass", ["HB", "#202020", {"precision": 1, "strength": 1}])
    with pytest.raises(RenderError, match=r"mass arc checks \(hatch lines x shape vertices\)"):
        render_full(prog(mass, ("polygon", [star])), budget=Budget(mass_checks=40_000))
    assert render_full(prog(mass, ("polygon", [square]))).stats["mass_checks"] > 4


def test_a_fine_hatch_is_scanned_at_its_own_spacing_and_an_endless_one_refused():
    """Hatch spacings under 0.1 were raised to 0.1 and a scan past 20,000 lines was cut short, so hatch(0.001)
    over a circle painted a coarse hatch in a moment where p5.brush strokes 100,000 lines and never finishes
    (measured in Chromium: its time limit, seeds 7 and 11)."""
    shape = [("hatchStyle", ["HB", "#202020", 1]), ("noFill", []), ("noStroke", [])]
    n = {d: render_full(prog(("hatch", [d, 30]), *shape, ("rect", [90, 90, 8, 8]))).stats["hatch_lines"]
         for d in (0.05, 0.1)}
    assert n[0.05] > 1.8 * n[0.1] > 0
    with pytest.raises(RenderError, match="over the render budget"):
        render_full(prog(("hatch", [0.001, 30]), *shape, ("circle", [100, 100, 50])))


def test_lines_far_off_the_canvas_are_charged_for_the_steps_they_walk():
    """A step off the canvas stamps nothing but draws its random numbers, as p5.brush walks it, and was charged
    nothing: 19,990 charcoal lines from (-50000, -50000) to (50000, 50000), 4.7 million steps and 0.18 s each,
    painted nothing for minutes. They are charged before they are walked, and refused."""
    import time

    far = [("set", ["charcoal", "#000000", 50]), *[("line", [-50000, -50000, 50000, 50000])] * 100]
    t0 = time.perf_counter()
    with pytest.raises(RenderError, match="more than 6e\\+07 steps of straight lines, on the canvas or off it"):
        render_full(prog(*far))
    assert time.perf_counter() - t0 < 30  # refused after ~13 lines, not after walking 100 (18 s)
    one = render_full(prog(*far[:2]))
    assert one.stats["line_steps"] == 4714045 and one.stats["steps"] == 0 and not painted(one.image).any()


def test_a_hatch_is_budgeted_by_the_scan_it_will_make():
    """A hatch tests every edge at every scanline across its shapes' extent. Scanlines through the gap between
    far-apart shapes (a ``hatchArray``) cost the same and make no lines: 20 hatches of a small 9,990-vertex shape
    and a triangle 180,000 px away took 23 s under every other budget. The scan is charged before it runs."""
    small = [[100 + 2 * math.cos(i * 0.01), -9000 + 2 * math.sin(i * 0.01)] for i in range(629)]
    far = [[100, 9000], [101, 9000], [101, 9001]]
    calls = [*PEN, ("hatch", [1, 0]), ("hatchArray", [[small, far]])]
    used = render_full(prog(*calls)).stats
    assert used["hatch_checks"] == pytest.approx((9001 - min(p[1] for p in small) + 1) * 632)
    with pytest.raises(RenderError, match=r"hatch scan checks \(scanlines x shape edges\)"):
        render_full(prog(*calls), budget=Budget(hatch_checks=used["hatch_checks"] - 1))
    mass = ("mass", ["HB", "#202020", {"precision": 1, "strength": 1}])
    assert render_full(prog(mass, ("circle", [100, 100, 50]))).stats["hatch_checks"] > 1000  # its three passes


def test_a_polygon_outline_is_its_edges_stroked_as_lines():
    """p5.brush strokes a polygon's outline a ``line`` per edge; we stroke all edges in one call (a 9,990-vertex
    outline took 250 ms a line at a time): the pixels must be those of the lines, through a field too."""
    pts = [[20, 30], [180, 40], [150, 170], [60, 150], [30, 90]]
    for extra in ([], [("field", ["waves"])]):
        poly = render(prog(*PEN, *extra, ("polygon", [pts])))
        lines = render(prog(*PEN, *extra, *[("line", [*pts[i], *pts[(i + 1) % 5]]) for i in range(5)]))
        assert painted(poly).sum() > 300 and np.array_equal(poly, lines)


def test_degenerate_shapes_warn_and_far_off_coordinates_are_clipped():
    r = render_full(prog(*FILL, ("polygon", [[[10, 10], [10, 10], [10, 10]]])))
    assert coverage(r.image) == 0.0 and r.warnings
    # a filled curve of no length has no vertex in p5.brush, whose fill then throws (measured in Chromium)
    with pytest.raises(RenderError, match="under the half pixel p5.brush needs"):
        render_full(prog(*FILL, ("beginShape", [0]), ("vertex", [5, 5]), ("vertex", [5, 5]), ("endShape", [False])))
    r = render_full(prog(*PEN, ("beginShape", [0]), ("vertex", [5, 5]), ("vertex", [5, 5]), ("endShape", [False])))
    assert coverage(r.image) == 0.0 and r.warnings  # unfilled, it paints nothing
    far = render_full(prog(*PEN, ("line", [-90, 100, 90000, 100]), ("line", [-50000, -50000, -40000, -40000])))
    assert far.stats["steps"] < 20_000  # only the part that can reach the canvas was walked
    assert painted(far.image)[95:105, 5:195].mean(axis=0).min() > 0  # ... and it crosses the whole canvas
    with pytest.raises(RenderError):
        render(prog(*FILL, ("circle", [1, 1, 5])), size=0)


def _ink(img) -> float:
    return float((255 - img.astype(float)).mean())


def test_a_size_is_a_whole_number_of_pixels_up_to_4096_refused_before_any_work():
    """An unbounded size asked for terabytes (size=1,000,000: the kernel killed the process); True was a 1 x 1
    image, 255.9 a 255 px one and "abc" a bare int() error."""
    p = prog(*FILL, ("circle", [100, 100, 40]))
    for bad in (1_000_000, 4097, 0, True, 255.9, "abc", float("nan")):
        with pytest.raises(RenderError, match=r"^render: size must be a whole number of pixels, 1-4096, got "):
            render(p, size=bad)
    assert render(p, size=np.int64(64)).shape == (64, 64, 3) and render(p, size=64.0).shape == (64, 64, 3)


def test_size_resamples_the_painting():
    p = prog(*FILL, ("circle", [100, 100, 40]))
    small, big = render(p, size=100), render(p, size=400)
    assert small.shape == (100, 100, 3) and big.shape == (400, 400, 3)
    assert abs(coverage(small) - coverage(render(p))) < 0.06
    assert abs(coverage(big) - coverage(render(p))) < 0.06
    assert np.array_equal(render_program(p), render(p))
    # pencil and hatch work keep their weight at another size: painting the canvas anew at 256 px drew it two to
    # three times darker (a thin pencil's stamp is one pixel at any scale), so the scorers saw heavier lines
    lines = prog(("set", ["HB", "#202020", 1]), *[("line", [20, 30 + 12 * i, 560, 60 + 10 * i]) for i in range(40)],
                 ("noStroke", []), ("hatch", [6, 30]), ("hatchStyle", ["2B", "#003049", 1]),
                 ("rect", [60, 420, 480, 150]), width=600, height=600)
    full, small = render(lines), render(lines, size=256)
    assert small.shape == (256, 256, 3)
    assert abs(_ink(small) / _ink(full) - 1) < 0.05


def test_a_big_canvas_is_budgeted_by_the_pixel():
    """Area budgets count a canvas bigger than 600 x 600 in 600 x 600 ones: its fills cost by the pixel."""
    fills = [("noStroke", [])] + [c for _ in range(3)
                                  for c in (("fill", ["#d7263d", 60]), ("rect", [0, 0, 1200, 1200]))]
    tight = Budget(fill_area=10)
    render_full(prog(*fills, width=600, height=600), budget=tight)  # 3 canvases: within 10
    with pytest.raises(RenderError, match="canvases of fill boxes"):
        render_full(prog(*fills, width=1200, height=1200), budget=Budget(fill_area=10))  # 3 x 4
    # a background writes the whole canvas: an eighth of a composite's area
    grounds = [("background", ["#fffceb"])] * 3
    assert render_full(prog(*grounds, width=600, height=600), budget=Budget(composite_area=1)).stats[
        "composite_area"] == pytest.approx(3 / 8)
    with pytest.raises(RenderError, match="canvases of mask composited"):
        render_full(prog(*grounds, width=1200, height=1200), budget=Budget(composite_area=1))  # 3 x 4 / 8


# ----------------------------------------------------------------- CLI


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", "render", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_cli_renders_programs_and_reports_bad_ones(tmp_path: Path):
    good = tmp_path / "good.json"
    good.write_text(prog(*FILL, ("circle", [100, 100, 50])).dumps())
    bad = tmp_path / "bad.json"
    bad.write_text('{"commands": [{"method": "vertex", "args": [1, 2]}]}')
    r = _cli(str(good), str(bad), "--out-dir", str(tmp_path / "out"), "--json", "--size", "120")
    assert r.returncode == 1
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [set(x) for x in lines] == [{"sketch", "ok", "png", "ms", "coverage", "error"}] * 2
    assert lines[0]["ok"] and Path(lines[0]["png"]).is_file() and 0 < lines[0]["coverage"] < 1
    assert lines[0]["ms"] > 0
    assert not lines[1]["ok"] and "vertex" in lines[1]["error"]
    assert r.stderr.strip().splitlines() == [f"{bad}: {lines[1]['error']}"]
    assert "Traceback" not in r.stderr
    ok = _cli(str(good), "-o", str(tmp_path / "one.png"))
    assert ok.returncode == 0 and (tmp_path / "one.png").is_file()


def test_cli_seed_seeds_a_sketch_whose_own_randomseed_then_paints_as_in_the_environment(tmp_path: Path):
    """--seed replaced the seed a sketch opening with randomSeed(42) recorded, so it painted another picture than
    the environment and than the contract ("painted with n") says; a program file's header still gives way."""
    body = ("translate(-width/2,-height/2); brush.noStroke(); brush.fillTexture(0.6,0.4); brush.fill('#2a6f97',120);"
            " for (let i = 0; i < 6; i++) brush.circle(random(40, 160), random(40, 160), random(10, 40)); }")
    head = "function setup(){createCanvas(200,200,WEBGL);angleMode(DEGREES);noLoop();}\nfunction draw(){"
    (tmp_path / "own.js").write_text(head + "randomSeed(42); " + body)
    (tmp_path / "free.js").write_text(head + body)
    pngs = {}
    for name in ("own", "free"):
        for seed in ("5", "42"):
            out = tmp_path / f"{name}{seed}.png"
            assert _cli(str(tmp_path / f"{name}.js"), "-o", str(out), "--seed", seed).returncode == 0
            pngs[name, seed] = np.asarray(Image.open(out))
    assert np.array_equal(pngs["own", "5"], pngs["own", "42"])  # its own seed, whatever --seed says
    assert np.array_equal(pngs["own", "42"], pngs["free", "42"])  # ... which is what --seed 42 paints unseeded
    assert not np.array_equal(pngs["free", "5"], pngs["free", "42"])
    program = tmp_path / "p.json"
    program.write_text(prog(*FILL, ("circle", [100, 100, 50])).dumps())
    for seed in ("5", "6"):
        assert _cli(str(program), "-o", str(tmp_path / f"p{seed}.png"), "--seed", seed, "--size", "100").returncode == 0
    assert not np.array_equal(np.asarray(Image.open(tmp_path / "p5.png")), np.asarray(Image.open(tmp_path / "p6.png")))


def test_cli_timeout_fires_and_the_next_sketch_still_renders(tmp_path: Path):
    heavy = tmp_path / "heavy.json"
    heavy.write_text(prog(*FILL, *[("circle", [100, 100, 90])] * 200).dumps())
    light = tmp_path / "light.json"
    light.write_text(prog(*FILL, ("circle", [100, 100, 20])).dumps())
    r = _cli(str(heavy), str(light), "--out-dir", str(tmp_path), "--json", "--timeout", "0.3")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1
    assert not lines[0]["ok"] and "timed out" in lines[0]["error"]
    assert lines[1]["ok"]


@pytest.mark.parametrize("args, needle", [
    (["--timeout", "nan"], "--timeout must be a number of seconds > 0 and at most 86400, got nan"),
    (["--timeout", "inf"], "--timeout must be a number of seconds > 0 and at most 86400, got inf"),
    (["--timeout", "1e7"], "--timeout must be a number of seconds > 0 and at most 86400, got 1e+07"),  # a traceback
    (["-o", "{tmp}/x.txt"], "-o must end in .png"),
    (["-o", "{tmp}/noext"], "-o must end in .png"),
    (["-o", "{tmp}/good.json/x.png"], "is not a directory"),
    (["-o", "/proc/x.png"], "-o /proc/x.png: cannot write to /proc"),
    (["--out-dir", "{tmp}/good.json"], "--out-dir {tmp}/good.json is not a directory"),
])
def test_cli_bad_flags_and_outputs_are_one_line_before_any_render(tmp_path: Path, args, needle):
    good = tmp_path / "good.json"
    good.write_text(prog(*FILL, ("circle", [100, 100, 50])).dumps())
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "-o" not in args and "--out-dir" not in args:
        args += ["-o", str(tmp_path / "t.png")]
    r = _cli(str(good), "--json", *args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == r.stderr.strip().splitlines()[0] and needle.replace("{tmp}", str(tmp_path)) in r.stderr


def test_cli_timeout_of_an_async_sketch_leaves_one_line_on_stderr(tmp_path: Path):
    """The render worker killed at ``--timeout`` left its sandbox worker running the sketch; exiting later it
    printed py_mini_racer's "Event loop is closed" tracebacks under the one line the command owes."""
    loop = tmp_path / "loop.js"
    loop.write_text("async function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); "
                    "await new Promise(r => r()); while (true) {} }\nfunction draw() { background('#ffffff'); }\n")
    r = _cli(str(loop), "-o", str(tmp_path / "loop.png"), "--timeout", "3")
    assert r.returncode == 1 and r.stderr.splitlines() == [f"{loop}: timed out after 3 s"], r.stderr[-2000:]


def test_cli_keeps_a_non_square_canvas_in_shape(tmp_path: Path):
    """``--size`` is the PNG's longer side: an 800 x 400 canvas came out 600 x 600, its circle a tall ellipse."""
    from PIL import Image

    wide = tmp_path / "wide.json"
    wide.write_text(prog(*FILL, ("circle", [400, 200, 150]), width=800, height=400).dumps())
    tall = tmp_path / "tall.json"
    tall.write_text(prog(*FILL, ("circle", [100, 300, 80]), width=200, height=600).dumps())
    r = _cli(str(wide), str(tall), "--out-dir", str(tmp_path / "out"), "--size", "300", "--json")
    assert r.returncode == 0, r.stderr
    a = np.asarray(Image.open(tmp_path / "out" / "wide.png").convert("RGB"))
    b = np.asarray(Image.open(tmp_path / "out" / "tall.png").convert("RGB"))
    assert a.shape == (150, 300, 3) and b.shape == (300, 100, 3)
    ys, xs = np.nonzero(np.abs(a.astype(int) - a[0, 0]).max(axis=2) > 30)  # the circle: as wide as it is tall
    assert 0.85 < (xs.max() - xs.min()) / (ys.max() - ys.min()) < 1.15


def test_cli_says_a_refusal_once_and_a_canvas_over_its_pixels_is_no_program(tmp_path: Path):
    big = tmp_path / "big.json"  # each side within 8192, 8192 x 8192 over 4096 x 4096: render alone refused it
    big.write_text(json.dumps({**json.loads(prog(*FILL, ("circle", [100, 100, 50])).dumps()), "width": 8192,
                               "height": 8192}))
    r = _cli(str(big), "-o", str(tmp_path / "big.png"))
    assert r.returncode == 1 and r.stderr.strip() == \
        f"{big}: program: canvas 8192x8192 has more than 16777216 pixels (4096 x 4096)"
    with pytest.raises(CommandError, match="^program: canvas 8192x8192 has more than 16777216 pixels"):
        prog(*FILL, width=8192, height=8192)
    assert prog(*FILL, width=8192, height=2048).width == 8192
    far = tmp_path / "far.json"
    far.write_text(prog(("set", ["charcoal", "#000000", 50]), *[("line", [-50000, -50000, 50000, 50000])] * 20).dumps())
    r = _cli(str(far), "-o", str(tmp_path / "far.png"))
    assert r.returncode == 1 and r.stderr.strip() == f"{far}: render: program is over the render budget: more " \
                                                     "than 6e+07 steps of straight lines, on the canvas or off it"


def test_cli_refuses_two_sketches_that_would_write_one_png(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = tmp_path / "a" / "good.json", tmp_path / "b" / "good.json"
    for p in (a, b):
        p.write_text(prog(*FILL, ("circle", [100, 100, 50])).dumps())
    r = _cli(str(a), str(b), "--json", "--out-dir", str(tmp_path / "out"))
    assert r.returncode == 2 and r.stdout == "" and not (tmp_path / "out").exists()
    assert r.stderr.strip() == f"{a} and {b} would both be written to {tmp_path / 'out' / 'good.png'}; " \
                               "render them separately or rename one"


def test_cli_says_a_directory_is_a_directory(tmp_path: Path):
    r = _cli(str(tmp_path), "--json", "--out-dir", str(tmp_path / "out"))
    assert r.returncode == 1 and json.loads(r.stdout)["error"] == "is a directory"
    assert r.stderr.strip() == f"{tmp_path}: is a directory"


SKETCH = """function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }
function draw() {
  translate(-width / 2, -height / 2);
  background("#fffaf0");
  brush.noStroke();
  brush.fill("#d7263d", 150);
  brush.circle(300, 300, 100);
}
"""


def test_cli_runs_sketches_through_the_sandbox_and_rejects_bare_p5(tmp_path: Path):
    good = tmp_path / "good.js"
    good.write_text(SKETCH)
    bad = tmp_path / "bad.js"
    bad.write_text(SKETCH.replace("brush.circle(300, 300, 100);", "rect(10, 10, 50, 50); text('hi', 10, 10);"))
    r = _cli(str(good), str(bad), "--out-dir", str(tmp_path / "out"), "--json")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1
    assert lines[0]["ok"] and lines[0]["coverage"] > 0.03 and lines[0]["ms"] < 5000
    assert Path(lines[0]["png"]) == tmp_path / "out" / "good.png"
    assert not lines[1]["ok"] and "rect" in lines[1]["error"] and lines[1]["png"] is None
    assert r.stderr.strip().splitlines() == [f"{bad}: {lines[1]['error']}"]


WARM_CHECK = r"""
import gc, json, sys
from pathlib import Path
from numba.core.registry import CPUDispatcher
from aquarelle.brush.sandbox import SketchRunner
from aquarelle.render.native import render
from aquarelle.render.warm import warm_up

def loaded():
    return {(o.py_func.__module__ + "." + o.py_func.__qualname__, str(s)) for o in gc.get_objects()
            if isinstance(o, CPUDispatcher) for s in o.signatures}

warm_up()
before = loaded()
with SketchRunner() as runner:
    for path in sys.argv[1:]:
        res = runner.run(Path(path).read_text(encoding="utf-8"))
        assert res.ok, (path, res.reason)
        render(res.program)
print(json.dumps(sorted(loaded() - before)))
"""


def test_warm_up_loads_every_kernel_the_reference_paintings_use():
    """After ``warm_up`` (what the render CLI and the env workers run first), the bench, parity and pool
    paintings load no compiled kernel and no new type specialisation of one: none of them pays another's
    first-call cost (seconds where a specialisation had to be compiled)."""
    root = Path(__file__).resolve().parents[1]
    sketches = sorted(str(p) for d in ("bench/sketches", "bench/parity_sketches", "pool/sketches")
                      for p in (root / d).glob("*.js"))
    assert len(sketches) >= 60
    r = subprocess.run([sys.executable, "-c", WARM_CHECK, *sketches], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == []


def test_encode_png_round_trips_through_pillow_and_refuses_other_arrays():
    """The env's observation PNGs (written by hand for speed): any reader must get the exact pixels back."""
    import io

    from PIL import Image

    from aquarelle.render.png import encode_png

    rng = np.random.default_rng(3)
    painting = render(prog(*FILL, ("circle", [100, 100, 60])))
    for img in (painting, rng.integers(0, 256, (5, 7, 3), dtype=np.uint8), np.zeros((1, 1, 3), np.uint8)):
        data = encode_png(img)
        Image.open(io.BytesIO(data)).verify()  # chunk CRCs and structure
        back = Image.open(io.BytesIO(data))
        assert back.mode == "RGB" and back.size == (img.shape[1], img.shape[0])
        assert np.array_equal(np.asarray(back), img)
    assert len(encode_png(painting)) < painting.nbytes / 4  # deflated, not stored
    for bad in (painting.astype(np.float64), painting[:, :, 0], np.zeros((0, 4, 3), np.uint8)):
        with pytest.raises(ValueError, match="H x W x 3 uint8"):
            encode_png(bad)


# ----------------------------------------------------------------- frames


def test_a_filled_shape_in_a_frame_is_built_in_its_own_axes_and_painted_through_it():
    """``frame(a, b, c, d, e, f)``: the shapes after it are in their own coordinates, drawn through the transform.
    A square turned 45 degrees about the canvas centre paints the diamond (its top corner, not the unturned square's
    corners); the identity frame paints byte for byte what no frame does; a frame's scale scales the fill (twice
    the side, about four times the painted area) and the stroke's stamps with it."""
    c = W / 2
    r = math.sqrt(0.5)
    turn = ("frame", [r, r, -r, r, c, c])
    square = ("rect", [-35, -35, 70, 70])
    img = render(prog(*FILL, turn, square, seed=4))
    m = painted(img)
    assert m[int(c - 45), int(c)] and m[int(c), int(c + 45)]  # the diamond's top and right corners (at 49.5)
    assert not m[int(c - 33), int(c - 33)] and not m[int(c + 33), int(c + 33)]  # the square's corners stay clean
    plain = render(prog(*FILL, ("rect", [c - 35, c - 35, 70, 70]), seed=4))
    ident = render(prog(*FILL, ("frame", [1, 0, 0, 1, 0, 0]), ("rect", [c - 35, c - 35, 70, 70]), seed=4))
    assert np.array_equal(plain, ident)
    small = painted(render(prog(*FILL, ("frame", [1, 0, 0, 1, c, c]), ("circle", [0, 0, 15]), seed=4))).sum()
    big = painted(render(prog(*FILL, ("frame", [2, 0, 0, 2, c, c]), ("circle", [0, 0, 15]), seed=4))).sum()
    assert 3.0 < big / small < 5.0
    marker = ("set", ["marker", "#202020", 2])
    line_small = painted(render(prog(marker, ("frame", [1, 0, 0, 1, 20, c]), ("polygon", [[[0, 0], [40, 0], [40, 1]]]),
                                     seed=4))).sum()
    line_big = painted(render(prog(marker, ("frame", [2, 0, 0, 2, 20, c]), ("polygon", [[[0, 0], [40, 0], [40, 1]]]),
                                   seed=4))).sum()
    assert line_big > 3 * line_small  # twice as long and twice as wide (measured 4.3; 2 were its stamps unscaled)
    assert np.array_equal(img, render(prog(*FILL, turn, square, seed=4)))  # deterministic


def test_a_frames_small_scale_is_charged_the_walk_in_its_own_coordinates():
    """Under a frame of scale 1e-4 a 9 px rect on the canvas is 90,000 px a side in its own coordinates, where
    p5.brush walks its outline (360,000 steps): the work is charged at that length, so fifty of them stop at the
    vertex budget at once (they were charged 36 each, and ran on)."""
    turn = [1e-4, 0, 0, 1e-4, 300, 300]
    shapes = []
    for _ in range(50):
        shapes += [("frame", turn), ("rect", [0, 0, 90_000, 90_000])]
    with pytest.raises(RenderError, match="over the render budget: more than 2e\\+06 vertices"):
        render(prog(*FILL, *shapes, width=600, height=600))
    one = render_full(prog(*FILL, *shapes[:2], width=600, height=600))
    assert one.stats["vertices"] >= 360_000


def test_cli_never_writes_over_an_input_or_into_a_folder(tmp_path: Path):
    """`render pic.png -o pic.png` replaced its input; `-o folder.png` was "internal error: IsADirectoryError"; a
    5000-digit integer in a program said to call sys.set_int_max_str_digits()."""
    pic = tmp_path / "pic.png"
    pic.write_bytes(b"not a sketch")
    for args in ([str(pic), "-o", str(pic)], [str(pic)], [str(pic), "-o", str(tmp_path / ".." / tmp_path.name / "pic.png")]):
        r = _cli(*args)
        assert r.returncode == 2 and r.stderr.strip().endswith(f"is the input {pic}; refusing to overwrite it (name "
                                                               "another output)"), r.stderr
    assert pic.read_bytes() == b"not a sketch"
    good = tmp_path / "good.json"
    good.write_text(Program.from_calls([("circle", [300, 300, 100])]).dumps())
    (tmp_path / "folder.png").mkdir()
    r = _cli(str(good), "-o", str(tmp_path / "folder.png"))
    assert r.returncode == 2 and r.stderr.strip() == f"-o {tmp_path / 'folder.png'} is a directory; name the PNG file " \
                                                     "to write"
    huge = tmp_path / "huge.json"
    huge.write_text('{"commands":[{"method":"circle","args":[' + "9" * 5000 + ",300,100]}]}")
    r = _cli(str(huge), "-o", str(tmp_path / "huge.png"))
    assert r.returncode == 1 and r.stderr.strip() == \
        f"{huge}: program JSON holds a number too large (5000 digits) at line 1 column 41"


def test_a_worker_compiling_its_kernels_gets_longer_than_its_start_and_says_so(monkeypatch, capsys):
    """The first `aquarelle render` after an install or an update compiles numba's kernels (124 s of CPU on a 2-core
    machine): the worker's 120 s start limit killed it, and every sketch failed "render worker did not start within
    120 s". Once the worker says it is loading its kernels it gets ``kernel_timeout``, and the command says why it
    waits. A real pipe; the peer a thread that answers as the worker does."""
    import multiprocessing as mp
    import threading
    import time

    from aquarelle.render import worker as wk

    monkeypatch.setattr(wk, "KERNEL_NOTE_S", 0.2)

    def answer(conn, kernel_s):
        conn.send({"phase": "kernels"})
        time.sleep(kernel_s)
        try:
            conn.send({"ready": True})
        except OSError:  # the parent gave up and closed its end
            pass

    w = wk.Worker("native", start_timeout=0.5, kernel_timeout=5.0)
    w.conn, peer = mp.Pipe()
    t = threading.Thread(target=answer, args=(peer, 1.0))
    t.start()
    assert w._await_ready() is None  # 1 s of kernels past a 0.5 s start limit
    t.join()
    assert "compiling the native renderer's kernels" in capsys.readouterr().err
    w = wk.Worker("native", start_timeout=0.5, kernel_timeout=0.6)
    w.conn, peer = mp.Pipe()
    t = threading.Thread(target=answer, args=(peer, 1.5))
    t.start()
    assert w._await_ready() == "render worker did not load its kernels within 0.6 s"
    t.join()
