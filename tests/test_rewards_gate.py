"""Each gate rule, tripped by a sketch (or by what the sandbox reports about one)."""

from __future__ import annotations

import numpy as np
import pytest

from aquarelle.brush.program import Program
from aquarelle.rewards.composite import RewardModel
from aquarelle.rewards.gate import check_gate, strip_code

GOOD = """async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  // a comment with rect( and text( inside must not count
  const label = "ellipse(1, 2, 3)";
  brush.noStroke();
  brush.fill("#d8402f", 120);
  brush.circle(300, 300, 120, 0.3);
}
"""
PROGRAM = Program.from_calls([("background", ["#fffceb"]), ("fill", ["#d8402f", 120]), ("circle", [300, 300, 120])])


def painted(frac: float, bg=(255, 252, 235)) -> np.ndarray:
    img = np.zeros((100, 100, 3), np.uint8)
    img[:] = bg
    img.reshape(-1, 3)[: int(round(frac * 10000))] = (200, 60, 50)
    return img


def gate(source=GOOD, img=None, program=PROGRAM, **kw):
    return check_gate(image=painted(0.2) if img is None else img, program=program, source=source, **kw)


def test_good_sketch_passes():
    g = gate()
    assert g.passed and g.reasons == [] and g.coverage == pytest.approx(0.2)


@pytest.mark.parametrize("source, words", [
    (GOOD[: GOOD.index("brush.circle") + 20], "truncated"),
    (GOOD + "\nconst s = 'never closed;\n", "unterminated string"),
    (GOOD + "\n/* trailing comment never closed", "comment"),
    (GOOD.replace("async function setup()", "async function start()"), "no setup()"),
    (GOOD.replace("600, 600, WEBGL", "600, 600"), "WEBGL"),
    (GOOD.replace("brush.noStroke();", "fetch('/x');"), "external access: fetch"),
    (GOOD.replace("brush.noStroke();", "const im = loadImage('cat.png');"), "external access: loadImage"),
    (GOOD.replace("brush.noStroke();", "import('https://evil.example/x.js');"), "external access"),
    (GOOD.replace("brush.noStroke();", "text('a watercolour', 10, 10);"), "text()"),
    (GOOD.replace("brush.noStroke();", "ellipse(300, 300, 80);"), "bare p5 drawing (use brush.*): ellipse"),
    (GOOD.replace("brush.noStroke();", "rect(0, 0, 600, 600);"), "bare p5 drawing (use brush.*): rect"),
    (GOOD.replace("brush.noStroke();", "brush.paintMasterpiece();"), "unknown brush method(s): paintMasterpiece"),
])
def test_source_rules(source, words):
    g = gate(source)
    assert not g.passed and any(words in r for r in g.reasons), g.reasons


def test_calls_outside_action_space():
    src = GOOD.replace("brush.noStroke();", 'brush.wash("#ff0000", 100);')
    assert gate(src, action_space="full").passed
    g = gate(src, action_space="hf10")
    assert not g.passed and "outside the hf10 action space: wash" in g.reasons


def test_own_helpers_named_like_p5_are_not_bare_drawing():
    src = GOOD.replace("function draw()", "function petal(x) { return x; }\nfunction draw()")
    src = src.replace("brush.noStroke();", "petal(3); brush.noStroke();")
    assert gate(src).passed


def test_sandbox_error_and_violations_fail_the_gate():
    g = gate(error="ReferenceError: nosuch is not defined")
    assert not g.passed and g.reasons == ["sketch failed: ReferenceError: nosuch is not defined"]
    g = gate(error="time limit (5 s) exceeded")
    assert "sketch failed: time limit (5 s) exceeded" in g.reasons
    g = gate(violations=["forbidden global: eval"])
    assert g.reasons == ["forbidden global: eval"]


def test_nothing_painted_and_too_little_paint():
    only_state = Program.from_calls([("background", ["#fffceb"]), ("fill", ["#d8402f", 120])])
    g = gate(program=only_state, img=painted(0.0))
    assert not g.passed and any("nothing painted" in r for r in g.reasons)
    g = gate(img=painted(0.004))
    assert not g.passed and any("< 0.5%" in r for r in g.reasons)
    assert gate(img=painted(0.006)).passed
    assert not check_gate(image=None, program=None).passed


def test_truncation_scanner_ignores_brackets_in_strings_and_comments():
    code, why = strip_code("const a = '({['; // ]]]\nf(1);")
    assert why is None and "(" not in code.split("\n")[0].replace("f(", "")


def test_failed_gate_makes_the_whole_reward_zero():
    r = RewardModel().score(image=painted(0.3), program=PROGRAM, source=GOOD.replace("brush.noStroke();", "text('x',1,1);"))
    assert r.reward == 0.0 and r.breakdown["gate"] == 0.0 and r.gate_reasons == ["text() is not allowed"]
    assert r.breakdown["judge"] is None and r.error is None and "Gate failed" in r.critique


def test_score_cli_runs_sketches_through_the_sandbox(tmp_path):
    """End to end: sandbox -> native render -> gate/length/judge/preference, one JSON line per sketch."""
    import json

    from typer.testing import CliRunner

    from aquarelle.cli import app

    good = tmp_path / "good.js"
    good.write_text(GOOD)
    crash = tmp_path / "crash.js"
    crash.write_text(GOOD.replace("brush.noStroke();", "noSuchFunction();"))
    wash = tmp_path / "wash.js"
    wash.write_text(GOOD.replace("brush.noStroke();", 'brush.wash("#88aacc", 120);'))
    tiny = tmp_path / "tiny.js"
    tiny.write_text(GOOD.replace("brush.circle(300, 300, 120, 0.3);", "brush.circle(300, 300, 3, 0);"))
    res = CliRunner().invoke(app, ["score", str(good), str(crash), str(wash), str(tiny), "--action-space", "hf10",
                                   "--json"])
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert [x["sketch"] for x in lines] == [str(good), str(crash), str(wash), str(tiny)]
    for x in lines:
        assert set(x) == {"sketch", "reward", "breakdown", "weights", "gate_reasons"}
        assert set(x["breakdown"]) == set(x["weights"]) == {"gate", "length", "judge", "preference"}
    g, c, w, t = lines
    assert g["breakdown"]["gate"] == 1.0 and 0.05 < g["reward"] <= 1.0 and g["gate_reasons"] == []
    assert 0.0 <= g["breakdown"]["judge"] <= 1.0 and 0.0 < g["breakdown"]["preference"] < 1.0
    assert c["reward"] == 0.0 and any("noSuchFunction" in r for r in c["gate_reasons"])
    assert w["reward"] == 0.0 and any("wash" in r and "hf10" in r for r in w["gate_reasons"])
    assert t["reward"] == 0.0 and any("< 0.5%" in r for r in t["gate_reasons"])
    assert res.exit_code == 0


def test_nan_coverage_from_the_caller_is_measured_not_passed():
    blank = np.full((64, 64, 3), 255, np.uint8)
    g = check_gate(image=blank, coverage_value=float("nan"))
    assert not g.passed and g.coverage == 0.0
    painted = blank.copy()
    painted[:16] = 40
    assert check_gate(image=painted, coverage_value=float("nan")).passed


def test_an_image_scored_without_its_program_is_measured_against_the_background_given():
    """Without a program the canvas colour is unknown: a blank cream canvas scored as image alone was 100% painted
    against white and passed the gate. ``background`` says the colour, as a program's ``background`` does."""
    blank = np.full((64, 64, 3), (255, 252, 235), np.uint8)
    r = RewardModel().score(image=blank, background=(255, 252, 235), weights=None)
    assert r.reward == 0.0 and r.breakdown["gate"] == 0.0 and r.coverage == 0.0
    assert RewardModel().score(image=painted(0.3), background=(255, 252, 235)).breakdown["gate"] == 1.0


def _renderer_bug(monkeypatch):
    """The native renderer failing on its own (a numpy error inside it): our bug, not the program's."""
    import aquarelle.render.native as native

    def broken(program, size=None, seed=None):
        raise ValueError("operands could not be broadcast together with shapes (600,600,3) (599,600,3)")

    monkeypatch.setattr(native, "render", broken)


def test_a_renderer_bug_is_reward_none_with_the_reason_not_a_gate_zero(monkeypatch):
    _renderer_bug(monkeypatch)
    r = RewardModel().score(image=None, program=PROGRAM, mode="tools")
    assert r.reward is None and r.breakdown["gate"] is None and r.gate_reasons == []
    assert r.error == ("renderer failed: ValueError: operands could not be broadcast together with shapes "
                       "(600,600,3) (599,600,3)")
    assert r.breakdown["length"] is not None  # what does not need the picture is still measured


def test_a_render_the_program_caused_is_the_gates_zero():
    """A real RenderError (p5.brush throws for a line with the stroke off) stays the program's fault."""
    prog = Program.from_calls([("background", ["#fffceb"]), ("noStroke", []), ("line", [20, 100, 180, 100])])
    r = RewardModel().score(image=None, program=prog, mode="tools")
    assert r.reward == 0.0 and r.breakdown["gate"] == 0.0 and r.error is None
    assert any("render refused the program" in x and "no brush" in x for x in r.gate_reasons), r.gate_reasons


def test_score_cli_says_a_renderer_bug_is_no_reward(tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from aquarelle.cli import app

    _renderer_bug(monkeypatch)
    good = tmp_path / "good.js"
    good.write_text(GOOD)
    res = CliRunner().invoke(app, ["score", str(good), "--json"])
    (line,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert line["reward"] is None and line["error"].startswith("renderer failed: ValueError: operands")
    assert res.exit_code == 1


def test_score_takes_weights_as_a_mapping_and_refuses_an_unknown_mode():
    """A mapping of some terms (as a reset takes it) was an AttributeError ('dict' object has no attribute
    'as_dict'), and mode="paint" was scored as a sketch."""
    from aquarelle.rewards.config import RewardError

    r = RewardModel().score(image=painted(0.3), weights={"judge": 0})
    assert r.weights["judge"] == 0.0 and r.weights["preference"] == RewardModel().config.weights_resolved().preference
    for kw, needle in (({"weights": {"bogus": 1}}, "unknown weight term"), ({"mode": "paint"}, "mode must be")):
        with pytest.raises(RewardError, match=needle):
            RewardModel().score(image=painted(0.3), **kw)
