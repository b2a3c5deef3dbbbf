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
