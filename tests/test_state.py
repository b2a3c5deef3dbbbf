"""State replay: what p5.brush carries between calls, and what it would throw."""

import pytest

from aquarelle.brush import CommandError, PaintState, replay, validate


def cmds(*calls):
    return [validate(m, list(a)) for m, *a in calls]


def test_fill_persists_until_nofill_and_ops_snapshot_it():
    st, ops = replay(cmds(("fill", "red", 100), ("circle", 1, 1, 5), ("fillBleed", 0.4), ("circle", 2, 2, 5),
                          ("noFill",), ("circle", 3, 3, 5)))
    assert [op.state.fill.active for op in ops] == [True, True, False]
    assert ops[0].state.fill.bleed != 0.4 and ops[1].state.fill.bleed == 0.4  # snapshots are frozen copies
    assert ops[0].state.fill.color == "#ff0000" and ops[0].state.fill.opacity == 100
    assert not st.fill.active


def test_set_pick_stroke_and_line_needs_a_colour():
    with pytest.raises(CommandError, match="line: no brush or colour set"):
        replay(cmds(("line", 0, 0, 1, 1)))
    st, ops = replay(cmds(("set", "2B", "blue", 3), ("pick", "HB"), ("line", 0, 0, 1, 1), ("noStroke",)))
    assert (ops[0].state.stroke.brush, ops[0].state.stroke.color, ops[0].state.stroke.weight) == ("HB", "#0000ff", 3)
    assert not st.stroke.active


def test_unknown_brush_and_field_raise_like_p5brush():
    with pytest.raises(CommandError, match='brush "nope" not found'):
        replay(cmds(("set", "nope", "red")))
    with pytest.raises(CommandError, match='field "nope" does not exist'):
        replay(cmds(("field", "nope")))
    st, _ = replay(cmds(("add", "nope", {"weight": 2}), ("pick", "nope"), ("addField", "f", [[1]]), ("field", "f")))
    assert st.stroke.brush == "nope" and st.flow.name == "f"
    with pytest.raises(CommandError, match="refreshField: no field is active"):
        replay(cmds(("refreshField", 1)))


def test_a_custom_field_named_like_a_built_in_one_is_lost_until_p5_brush_makes_its_fields():
    """p5.brush makes its seven fields at its first field call, line or painting shape, each over whatever has
    that name: a custom "waves" added before then is overwritten, one added after replaces the built-in."""
    grid = [[30.0]]
    st, _ = replay(cmds(("addField", "waves", grid), ("addField", "mine", grid), ("set", "HB", "black", 1),
                        ("noStroke",), ("circle", 5, 5, 3), ("field", "waves")))
    assert st.fields == {"mine": grid} and st.flow.name == "waves"  # the built-in waves: nothing painted before
    for first in (("field", "mine"), ("noField",), ("fill", "red", 100)):
        extra = [("circle", 5, 5, 3)] if first[0] == "fill" else []
        st, _ = replay(cmds(("addField", "mine", grid), first, *extra, ("addField", "waves", grid)))
        assert st.fields == {"mine": grid, "waves": grid}, first


def test_shape_building():
    st, ops = replay(cmds(("beginShape", 0.2), ("vertex", 1, 2), ("vertex", 3, 4, 0.5), ("vertex", 5, 0),
                          ("endShape", True)))
    assert ops[0].geometry == {"vertices": [[1, 2, 1], [3, 4, 0.5], [5, 0, 1]], "curvature": 0.2, "closed": True}
    assert st.shape is None
    with pytest.raises(CommandError, match="vertex: called outside beginShape"):
        replay(cmds(("vertex", 1, 2)))
    with pytest.raises(CommandError, match="endShape: called without beginShape"):
        replay(cmds(("endShape",)))
    with pytest.raises(CommandError, match="endShape: needs at least 2 vertices"):
        replay(cmds(("beginShape",), ("vertex", 1, 1), ("endShape",)))


def test_stroke_path():
    _, ops = replay(cmds(("beginStroke", "segments", 10, 20), ("move", 90, 30), ("move", 0, 10, 0.5), ("endStroke", 45)))
    assert ops[0].geometry == {"type": "segments", "x": 10, "y": 20, "segments": [[90, 30, 1], [0, 10, 0.5]]}
    with pytest.raises(CommandError, match="move: called without beginStroke"):
        replay(cmds(("move", 0, 1)))


def test_hatch_mass_clip_wash_background_and_queries():
    st, ops = replay(cmds(("hatch", 4, 30), ("hatchStyle", "pen", "black", 1), ("mass", "charcoal", "green"),
                          ("clip", [0, 0, 10, 10]), ("wash", "tan", 50), ("background", "white"), ("box",),
                          ("rect", 0, 0, 5, 5), ("noHatch",), ("noMass",), ("noClip",), ("noWash",)))
    assert [op.command.method for op in ops] == ["background", "rect"]
    rect_state = ops[1].state
    assert rect_state.hatch.active and rect_state.hatch.style == ("pen", "#000000", 1)
    assert rect_state.mass.active and rect_state.clip == [0, 0, 10, 10] and rect_state.wash.active
    assert not (st.hatch.active or st.mass.active or st.wash.active) and st.clip is None
    assert st.background == "#ffffff"


def test_scale_brushes_multiplies():
    st = PaintState()
    for c in cmds(("scaleBrushes", 2), ("scaleBrushes", 1.5)):
        st.apply(c)
    assert st.brush_scale == 3


def test_mass_array_needs_a_mass_like_p5brush():
    """p5.brush's massArray draws with the mass brush: without one, set(null, ...) throws 'Brush "null" not found'."""
    tri = [[0, 0], [10, 0], [5, 8]]
    with pytest.raises(CommandError, match=r"massArray: no mass set \(call mass\(brush, color\) first\)"):
        replay(cmds(("massArray", [tri])))
    with pytest.raises(CommandError, match="massArray: no mass set"):
        replay(cmds(("mass", "charcoal", "green"), ("noMass",), ("massArray", [tri])))
    _, ops = replay(cmds(("mass", "charcoal", "green"), ("massArray", [tri])))
    assert ops[0].command.method == "massArray" and ops[0].state.mass.brush == "charcoal"


def test_the_examples_render_natively():
    """examples/*.js are what a user tries first: each must paint (the browser reference agrees, tested by hand)."""
    from pathlib import Path

    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.render.native import render

    for path in sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.js")):
        res = run_sketch(path.read_text())
        assert res.ok, (path.name, res.reason)
        assert render(res.program, size=64).std() > 0, path.name


def test_an_open_two_point_curve_is_refused_only_where_a_fill_or_stroke_would_paint_it():
    """Two points and curvature > 0 make p5.brush an empty path (see test_browser): refused with a stroke or a
    fill; harmless (nothing painted, nothing broken) without, closed, or at curvature 0."""
    two = [[0, 0], [50, 20]]
    for calls in ([("set", "2B", "blue", 3), ("spline", two, 0.5)],
                  [("fill", "red", 100), ("beginShape", 0.3), ("vertex", 0, 0), ("vertex", 9, 9), ("endShape", False)]):
        with pytest.raises(CommandError, match="2 points with curvature 0.[35] make an empty path"):
            replay(cmds(*calls))
    for calls in ([("spline", two, 0.5)], [("set", "2B", "blue", 3), ("spline", two, 0)],
                  [("set", "2B", "blue", 3), ("spline", [*two, [90, 0]], 0.5)],
                  [("fill", "red", 100), ("beginShape", 0.3), ("vertex", 0, 0), ("vertex", 9, 9), ("endShape", True)]):
        replay(cmds(*calls))


def test_scale_brushes_scales_the_brushes_that_exist_when_it_is_called():
    """p5.brush's scaleBrushes multiplies the sizes of the brushes in its list at that moment: a brush added after
    it keeps its own size, one added before is scaled, and built-in brushes are scaled by every call."""
    st, _ = replay(cmds(("add", "early", {"weight": 2}), ("scaleBrushes", 0.5), ("add", "late", {"weight": 2}),
                        ("scaleBrushes", 3)))
    assert st.scale_of("early") == pytest.approx(1.5)
    assert st.scale_of("late") == pytest.approx(3)
    assert st.scale_of("2B") == pytest.approx(1.5)
    st, _ = replay(cmds(("scaleBrushes", 0.5), ("add", "2B", {"weight": 2})))  # a custom brush that replaces one
    assert st.scale_of("2B") == 1


def test_push_and_pop_save_and_restore_what_p5_brush_saves():
    """p5.brush's p5 add-on wraps push()/pop(): its fill, wash, stroke, hatch, mass and field state set between
    them is undone at pop(); brushes, their scale, custom fields and the frame are not part of it. A pop() without a
    push() restores nothing, and push() makes p5.brush's fields (a custom "waves" after it replaces the built-in)."""
    st, ops = replay(cmds(("noStroke",), ("push",), ("fill", "red", 100), ("set", "2B", "blue", 2),
                          ("hatch", 4, 30), ("wash", "green", 50), ("field", "curved"), ("scaleBrushes", 2),
                          ("frame", 0, 1, -1, 0, 5, 5), ("circle", 1, 1, 5), ("pop",), ("circle", 2, 2, 5), ("pop",)))
    inside, after = ops[0].state, ops[1].state
    assert inside.fill.active and inside.stroke.active and inside.hatch.active and inside.wash.active
    assert inside.flow.active and inside.flow.name == "curved"
    assert not (after.fill.active or after.stroke.active or after.hatch.active or after.wash.active or after.flow.active)
    assert after.brush_scale == 2 and after.frame == (0, 1, -1, 0, 5, 5)  # not saved by push()
    assert st.stack == []
    grid = [[30.0]]
    st, _ = replay(cmds(("push",), ("addField", "waves", grid)))
    assert st.fields == {"waves": grid}


def test_push_nests_at_most_so_deep():
    from aquarelle.brush.state import MAX_PUSH_DEPTH

    st, _ = replay(cmds(*[("push",)] * MAX_PUSH_DEPTH, *[("pop",)] * MAX_PUSH_DEPTH))
    assert st.stack == []
    with pytest.raises(CommandError, match=f"push: more than {MAX_PUSH_DEPTH} pushes without a pop"):
        replay(cmds(*[("push",)] * (MAX_PUSH_DEPTH + 1)))
