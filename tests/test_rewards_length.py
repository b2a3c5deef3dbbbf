"""The length ramp: sketch mode over characters/4, tools mode over brush calls."""

import pytest

from aquarelle.rewards.length import calls_to_tokens, length_score, ramp


@pytest.mark.parametrize("tokens, expect", [
    (0, 0.0), (149, 0.0), (150, 0.0), (1575, 0.5), (3000, 1.0), (4500, 1.0), (6000, 1.0), (6001, 0.0)])
def test_ramp(tokens, expect):
    assert ramp(tokens) == pytest.approx(expect)


def test_sketch_mode_counts_characters_over_four():
    assert length_score(source="x" * 599) == 0.0
    assert length_score(source="x" * (4 * 1575)) == pytest.approx(0.5)
    assert length_score(source="x" * 12000) == 1.0
    assert length_score(source="x" * 24004) == 0.0
    assert length_score(mode="revise", source="x" * 12000) == 1.0


def test_comments_and_whitespace_pad_nothing():
    """A one-circle sketch padded with a 12,000-character comment (or 400 comment lines, or blank lines) earned the
    whole term under the published count, beating every love painting of the pool with the local scorers."""
    sketch = ("function setup() { createCanvas(600, 600, WEBGL); }\n"
              "function draw() { brush.fill('#5b8fd6', 120); brush.circle(300, 300, 200); }\n")
    padded = [sketch + "/* " + "watercolour " * 1000 + "*/",
              sketch + "// soft wash layer\n" * 400,
              "\n".join(sketch) + "\n" * 12000 + " " * 12000]
    for p in padded:
        assert length_score(source=p) == length_score(source=sketch) == 0.0
    # code and the strings in it still count, once each run of spaces is one
    code = "brush.circle(300, 300, 200);\n        " * 100  # each newline and the next indent: one space
    assert length_score(source=code) == pytest.approx(ramp((len(code) - 8 * 100) / 4))
    for src in ("s('" + "#" * 8000 + "');", "f('//" + "x" * 8000 + "');"):  # '//' in a string is no comment
        assert length_score(source=src) == pytest.approx(ramp(len(src) / 4))


def test_tools_mode_counts_brush_calls():
    assert calls_to_tokens(0) == 60
    assert length_score(mode="tools", n_calls=12) == 0.0
    assert 0 < length_score(mode="tools", n_calls=13) < 0.01
    assert length_score(mode="tools", n_calls=420) == 1.0
    assert length_score(mode="tools", n_calls=848) == 1.0
    assert length_score(mode="tools", n_calls=849) == 0.0
    assert length_score(mode="tools", n_calls=210) == pytest.approx(ramp(60 + 7 * 210))


def test_tools_mode_counts_the_calls_a_painting_reads():
    """One soft circle and 420 `noStroke()` earned the whole length term (every call counted): a setting made again
    before anything is painted was never read, nor one after the last painting call."""
    from aquarelle.brush import Program
    from aquarelle.rewards.length import counted_calls

    def prog(*calls):
        return Program.from_calls(list(calls)).commands

    circle = ("circle", [300, 300, 100])
    assert counted_calls(prog(("fill", ["#5b8fd6", 120]), circle)) == 2
    assert counted_calls(prog(*[("noStroke", [])] * 420, ("fill", ["#5b8fd6", 120]), circle)) == 3
    alternating = [c for _ in range(210) for c in (("noStroke", []), ("noFill", []))]
    assert counted_calls(prog(("fill", ["#5b8fd6", 120]), circle, *alternating, circle)) == 5
    assert counted_calls(prog(("fill", ["#5b8fd6", 120]), circle, ("fill", ["#ff0000", 120]), circle)) == 4
    assert counted_calls(prog(("background", ["#fffceb"]), ("fill", ["#5b8fd6", 120]), circle,
                              ("noStroke", []))) == 2
    shape = [("beginShape", [0]), ("vertex", [1, 1]), ("vertex", [9, 1]), ("vertex", [5, 9]), ("endShape", [True])]
    assert counted_calls(prog(("fill", ["#5b8fd6", 120]), *shape)) == 6


def test_the_reward_reads_the_counted_calls_in_tools_mode():
    from aquarelle.brush import Program
    from aquarelle.rewards import RewardModel
    from aquarelle.rewards.config import RewardConfig

    model = RewardModel(RewardConfig(weights={"gate": 0.5, "length": 0.5, "judge": 0, "preference": 0}))
    calls = [("fill", ["#5b8fd6", 120]), ("circle", [300, 300, 200])]
    padded = Program.from_calls([("noStroke", [])] * 420 + calls)
    res = model.score(image=None, program=padded, mode="tools", n_calls=422)
    assert res.breakdown["length"] == 0.0 and res.reward == 0.5
    many = Program.from_calls([c for i in range(60) for c in (("fill", [f"#{i:02x}8fd6", 120]),
                                                              ("circle", [100 + 5 * i, 300, 40]))])
    assert model.score(image=None, program=many, mode="tools").breakdown["length"] == length_score(mode="tools",
                                                                                                   n_calls=120)


_ONE_CIRCLE = ("function setup() { createCanvas(600, 600, WEBGL); }\n"
               "function draw() { translate(-width / 2, -height / 2); brush.fill('#5b8fd6', 120); "
               "brush.circle(300, 300, 200); }\n")


def test_code_the_painting_never_runs_pads_nothing():
    """A one-circle sketch padded with an unused string, array or function (or a branch never taken) earned the
    whole term in sketch mode, the sandbox's program unchanged: the count is capped by the program's export."""
    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.rewards import RewardModel
    from aquarelle.rewards.config import RewardConfig

    pads = ["const notes = '" + "soft wet wash, " * 800 + "';\n",
            "const data = [" + ", ".join(str(i * 7 % 600) for i in range(3000)) + "];\n",
            "function unused() {\n" + "  brush.circle(120, 140, 30);\n" * 400 + "}\n",
            "function later(k) { if (k > 1) {\n" + "  brush.circle(120, 140, 30);\n" * 400 + "} }\n"]
    model = RewardModel(RewardConfig(weights={"gate": 0.5, "length": 0.5, "judge": 0, "preference": 0}))
    for pad in pads:
        src = pad + _ONE_CIRCLE
        res = run_sketch(src)
        assert res.ok, res.reason
        assert ramp(len(src) / 4) > 0.3  # what it earned before
        assert length_score(source=src, program=res.program) == 0.0
        assert model.score(image=None, program=res.program, source=src, mode="sketch").breakdown["length"] == 0.0
    # the same calls written out are the painting's own code, and count in full
    drawn = _ONE_CIRCLE.replace("brush.circle(300, 300, 200); }", "brush.circle(300, 300, 200);\n"
                                + "brush.circle(120, 140, 30);\n" * 400 + "}")
    res = run_sketch(drawn)
    assert length_score(source=drawn, program=res.program) == length_score(source=drawn) > 0.5


def test_the_cap_leaves_hand_written_sketches_whole_and_only_ever_lowers():
    """Loops and helpers make a sketch shorter than its export, not longer: every pool, bench, parity and example
    sketch scores as before. An overlong sketch stays 0 even where its program would be in range."""
    from pathlib import Path

    from aquarelle.brush.export import to_sketch
    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.rewards.length import MIN_CALL_CHARS, estimated_tokens, written_calls

    root = Path(__file__).resolve().parents[1]
    files = sorted([*root.glob("pool/sketches/*.js"), *root.glob("bench/sketches/*.js"),
                    *root.glob("bench/parity_sketches/*.js"), *root.glob("examples/*.js")])
    assert len(files) >= 40
    for f in files:
        src = f.read_text()
        res = run_sketch(src)
        assert res.ok, f"{f.name}: {res.reason}"
        assert length_score(source=src, program=res.program) == length_score(source=src), f.name
        # the bound that spares writing the export out holds
        assert estimated_tokens(to_sketch(res.program)) >= written_calls(res.program) * MIN_CALL_CHARS / 4, f.name
    long_src = _ONE_CIRCLE.replace("brush.circle(300, 300, 200); }", "brush.circle(300, 300, 200);\n"
                                   + "brush.circle(120, 140, 30);\n" * 1000 + "}")
    assert length_score(source=long_src, program=run_sketch(long_src).program) == length_score(source=long_src) == 0.0
