"""PaintingToolEnv driven the way TRL 1.16's GRPOTrainer drives an environment_factory class."""

from __future__ import annotations

import inspect
import json

import pytest
from transformers.utils import get_json_schema

from aquarelle.brush import HF10
from aquarelle.train import PaintingToolEnv, ToolError, make_tool_env, tool_names


def trl_tools(instance) -> dict:
    """What GRPOTrainer does: every public function on the class except reset/get_reward is a tool."""
    return {name: getattr(instance, name)
            for name, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")}


def trl_call(tools: dict, name: str, arguments: dict):
    """A tool call as TRL runs it: exceptions become {'error': msg} for the model."""
    try:
        return tools[name](**arguments)
    except Exception as e:  # noqa: BLE001 - mirrors trl's _tool_call_loop
        return {"error": str(e)}


def test_tool_list_is_exactly_the_space_plus_shape_and_finish():
    env = PaintingToolEnv()  # TRL calls the factory with no arguments
    tools = trl_tools(env)
    expected = set(HF10) | {"shape", "finish"}
    assert set(tools) == expected == set(tool_names("tools", "hf10"))
    for fn in tools.values():  # every tool must render to a schema (TRL fails at the first step otherwise)
        schema = get_json_schema(fn)
        assert schema["function"]["description"]
    circle = get_json_schema(tools["circle"])["function"]["parameters"]
    assert circle["required"] == ["x", "y", "r"] and circle["properties"]["x"]["type"] == "number"
    shape = get_json_schema(tools["shape"])["function"]["parameters"]["properties"]["points"]
    assert shape == {"type": "array", "items": {"type": "array", "items": {"type": "number"}},
                     "description": shape["description"]}


def test_other_modes_and_spaces():
    revise = make_tool_env(mode="revise")
    assert set(trl_tools(revise())) == {"submit_sketch", "finish"}
    assert set(trl_tools(make_tool_env(mode="sketch")())) == {"submit_sketch"}
    full = make_tool_env(action_space="full")()
    names = set(trl_tools(full))
    assert {"line", "set", "hatch", "spline", "shape", "finish"} <= names
    assert not names & {"wRand", "box", "listFields", "instance", "load"}  # queries and no-ops are not tools
    for fn in trl_tools(full).values():
        get_json_schema(fn)
    no_shape = make_tool_env(action_space=["fill", "circle"])()
    assert set(trl_tools(no_shape)) == {"fill", "circle", "finish"}
    with pytest.raises(ValueError, match="mode must be"):
        make_tool_env(mode="paint")


def test_an_episode_as_trl_runs_it():
    env = PaintingToolEnv()
    row = {"prompt": [{"role": "user", "content": "a red poppy in a field"}], "seed": 3, "prompt_id": "p1"}
    text = env.reset(**row)
    assert text.startswith("\n\n") and "40 steps" in text and "poppy" not in text  # subject already in the prompt
    tools = trl_tools(env)
    calls = [
        ("fill", {"color": "#d7263d", "opacity": 200}),
        ("fillBleed", {"strength": 0.3}),
        ("shape", {"points": [[200, 200], [400, 200], [300, 380]], "curvature": 0.4}),
        ("circle", {"x": 300, "y": 300, "r": -4}),           # bad value
        ("vertex", {"x": 1, "y": 2}),                         # outside beginShape
        ("circle", {"x": 300, "y": 120, "r": 60}),
    ]
    results = [trl_call(tools, n, a) for n, a in calls]
    assert all(isinstance(r, str) and len(r) <= 400 for i, r in enumerate(results) if i not in (3, 4))
    # a refused call used a step: the policy hears what is left (it heard the error only)
    assert results[3] == {"error": "circle: r must be in (0, 100000], got -4. 36 steps left."}
    assert results[4]["error"].endswith(" 35 steps left.")
    assert "vertex" in results[4]["error"] and "beginShape" in results[4]["error"]
    assert "Painted" in results[2] and "Coverage" in results[5]
    assert env.tool_errors == 2
    final = trl_call(tools, "finish", {})
    assert "Reward" in final and env.done
    assert env.reward is not None and env.reward > 0
    assert env.breakdown["gate"] == 1.0
    assert env.image_png[:4] == b"\x89PNG"
    methods = [c["method"] for c in env.program["commands"]]
    assert methods == ["fill", "fillBleed", "beginShape", "vertex", "vertex", "vertex", "endShape", "circle"]
    assert "finished" in trl_call(tools, "circle", {"x": 1, "y": 1, "r": 5})["error"]

    # the pooled instance is reused: reset starts clean
    env.reset(prompt="a blue sea", seed=4)
    assert env.coverage == 0.0 and not env.done and env.program["commands"] == []


def test_reward_scores_an_unfinished_painting_and_caps_text():
    Env = make_tool_env(max_steps=5, obs_chars=60)
    env = Env()
    text = env.reset(prompt="a lemon")
    # the task whole: it is prompt, not a tool result
    assert text.rstrip().endswith("5 steps at most (the last one scores the painting), or call finish when it is done.")
    assert len(env.fill("#f4d35e", 220)) <= 60  # a tool result is capped
    env.circle(300, 300, 100)
    assert not env.done
    assert env.reward > 0 and env.done  # reading the reward finished the episode


def test_a_capped_tool_result_still_tells_the_policy_its_shape_missed_and_how_many_steps_are_left():
    """Cut at the trainer's default 120 characters (``env.observation_chars``), a tool result showed only the
    call, the coverage and the start of the painting's summary: the off-canvas warning and the steps left that
    follow it never reached the policy, which went on painting circles at x 700 while told "Coverage 0.0%"."""
    from aquarelle.train.config import EnvSection

    cfg = EnvSection()  # the trainer's defaults: 16 steps, results cut at 120 characters
    env = make_tool_env(max_steps=cfg.max_steps, obs_chars=cfg.observation_chars)()
    env.reset(prompt="a red poppy", seed=3)
    # the summary that does not fit is left out whole, not cut to "So far 0 shape(s), 1 colour(s) (#8a9a9a); f..."
    assert env.fill("#8a9a9a", 90) == "Set fill(#8a9a9a, 90) (nothing painted yet). Coverage 0.0%. 15 steps left."
    out = env.circle(700, 200, 70)
    assert len(out) <= 120 and "Coverage 0.0%" in out and "Warning: circle lies off the 600x600 canvas" in out
    assert env.circle(300, 300, 60).endswith(" 13 steps left.")
    env = make_tool_env(max_steps=cfg.max_steps, obs_chars=400)()  # room for it: the summary stays
    env.reset(prompt="a red poppy", seed=3)
    assert env.fill("#8a9a9a", 90).endswith("15 steps left. So far 0 shape(s), 1 colour(s) (#8a9a9a); "
                                            "fill #8a9a9a opacity 90.")


def test_a_tool_result_shows_the_call_as_p5_brush_code_not_python():
    """The policy writes JavaScript: it was shown ``fillBleed(0.5, out, None)`` and ``fillTexture(0.6, 0.6, True)``."""
    env = PaintingToolEnv()
    env.reset(prompt="a lemon", seed=1)
    assert env.fillBleed(0.5).startswith("Set fillBleed(0.5, out) ")
    assert env.fillTexture(0.6, 0.6).startswith("Set fillTexture(0.6, 0.6, true) ")


def test_tools_mode_gate_fails_on_empty_canvas():
    env = PaintingToolEnv()
    env.reset(prompt="nothing")
    env.fill("#000000", 10)
    out = env.finish()
    assert env.reward == 0.0 and env.breakdown["gate"] == 0.0 and "Reward 0.000" in out


def test_tool_errors_raise_tool_error():
    env = PaintingToolEnv()
    with pytest.raises(ToolError, match="reset first"):
        env.fill("#ffffff", 10)
    env.reset(prompt="x")
    with pytest.raises(ToolError, match="not a valid colour|colour"):
        env.fill("not-a-colour", 10)
    with pytest.raises(ToolError, match="shape: points"):
        env.shape([[1, 2]])
    with pytest.raises(ToolError, match="true or false"):  # bool("false") closed the shape
        env.shape([[10, 10], [200, 20], [100, 200]], 0.5, "false")
    json.dumps(env.state.model_dump())  # the state is plain JSON


def test_a_tool_env_takes_the_action_space_get_space_gives():
    """``make_tool_env`` resolves its space with ``get_space``, which takes an ActionSpace; listing one for the
    resets was a bare TypeError ('ActionSpace' object is not iterable)."""
    from aquarelle.brush import get_space

    env = make_tool_env(action_space=get_space(["fill", "circle"]))()
    assert set(trl_tools(env)) == {"fill", "circle", "finish"}
    env.reset(prompt="a red dot")
    env.fill("#d7263d", 200)
    assert "Painted circle" in env.circle(300, 300, 80)


def test_two_in_process_tool_env_classes_each_score_with_their_own_reward_config():
    """Two environment_factory classes in one process (in-process environments) with different reward configs:
    each instance scores with its class's, not with the config of the instance made last."""
    Hps = make_tool_env(reward_config={"preset": "hps-only"}, name="HpsEnv")
    Judge = make_tool_env(reward_config={"preset": "judge-led", "render_size": 64}, name="JudgeEnv")
    hps, judge = Hps(), Judge()  # the judge-led one is made last
    for env in (hps, judge):
        env.reset(prompt="a red sun", seed=3)
        env.fill("#d7263d", 220)
        env.circle(300, 300, 150)
        env.finish()
    assert hps.reward is not None and judge.reward is not None
    assert hps.breakdown["judge"] is None and hps.breakdown["preference"] is not None  # hps-only: judge weight 0
    assert judge.breakdown["judge"] is not None
    assert hps.reward == pytest.approx(0.05 + 0.9 * hps.breakdown["preference"])


# --------------------------------------------------------------------------- what the policy is told (QA 2026-12-06)


def test_the_task_text_lists_the_tools_training_offers():
    """With the training defaults (``env.hide_tools``) the task said "Methods: beginShape, ..., vertex" while TRL
    offered shape and no beginShape, vertex or endShape: the two messages contradicted each other."""
    from aquarelle.train.config import load_config
    from aquarelle.train.data import reset_row
    from aquarelle.train.envglue import env_class
    from aquarelle.train.model import SYSTEMS

    cfg = load_config(None)
    cls = env_class("tools", "hf10", cfg)
    row = reset_row("a quiet lake at dawn", "p1", "train", mode="tools", system=SYSTEMS["tools"],
                    action_space="hf10", preset=cfg.reward.preset, seed=3, max_steps=16, revisions=1)
    text = cls().reset(**row)
    offered = sorted(set(trl_tools(cls())) - {"finish"})
    assert f"Methods: {', '.join(offered)}." in text and "shape" in offered
    assert "beginShape" not in text and "vertex" not in text and "lake" not in text
    assert "16 steps at most" in text


def test_a_subject_with_a_full_stop_is_not_cut_into_the_task_text():
    """The subject was stripped at its first ". ": "Mt. Fuji at dawn" left "Fuji at dawn. Canvas ..." behind."""
    env = make_tool_env(mode="revise")()
    text = env.reset(subject="Mt. Fuji at dawn",
                     prompt=[{"role": "user", "content": "Paint a watercolour: Mt. Fuji at dawn\n"}])
    assert text.startswith("\n\nCanvas 600x600") and "Fuji" not in text


def test_a_refused_call_in_revise_mode_says_the_next_sketch_is_the_last():
    env = make_tool_env(mode="revise", revisions=1, obs_chars=600)()
    env.reset(subject="a lake", seed=1)
    with pytest.raises(ToolError) as e:
        env.submit_sketch("function setup(){createCanvas(600,600,WEBGL);}\n"
                          "function draw(){brush.fill('red');brush.rect(1,2,3,4);}")
    assert "rect" in str(e.value) and str(e.value).endswith("(1 more allowed) or finish.")
    assert env.state.revisions_left == 0


def test_revise_results_lead_with_the_score_and_keep_the_critique_at_the_training_cap():
    """At the default 120 characters a revise result kept none of its critique nor "Revise: ... or finish"."""
    from aquarelle.train.config import EnvSection

    env = make_tool_env(mode="revise", revisions=1, obs_chars=EnvSection().revise_observation_chars)()
    env.reset(subject="a lake", seed=1)
    out = env.submit_sketch("function setup(){createCanvas(600,600,WEBGL);angleMode(DEGREES);}\n"
                            "function draw(){translate(-width/2,-height/2);brush.fill('#3a7bd5',150);"
                            "brush.circle(300,300,150);}")
    assert out.startswith("Score ") and "Revise: send a new sketch (1 more allowed) or finish." in out
    assert "Critique: Judge" in out and "Preference" in out  # the whole critique, not its first words


def test_the_shape_tools_errors_name_its_own_parameters():
    """The policy called shape(points, curvature, close): its errors named vertex, beginShape and endShape, by call
    numbers one past the point's index, and 6,000 points were "an action has at most 5000 calls"."""
    env = PaintingToolEnv()
    env.reset(prompt="a boat", seed=1)
    env.fill("blue")
    tri = [[100, 100], [200, 100], [150, 200]]
    for args, msg in [((tri[:1] + [[200, 100, 3]] + tri[2:],), "shape: points[1]: pressure must be in 0-2, got 3"),
                      ((tri, 1.2), "shape: curvature must be in 0-1, got 1.2"),
                      ((tri, 0.5, "false"), "shape: close must be true or false, got 'false'"),
                      (([[i % 600, i % 500] for i in range(6000)],), "shape: at most 4998 points, got 6000")]:
        with pytest.raises(ToolError) as e:
            env.shape(*args)
        assert str(e.value) == msg
    assert env.state.steps_left == 39  # checked before the step: none used
    assert env.tool_errors == 4  # but each counted, as the environment's refusals are


def test_the_system_prompts_describe_the_skeleton_the_sandbox_requires():
    """SYSTEM_SKETCH put everything in setup() and never named draw(), which the sandbox requires: a policy that
    followed it to the letter was rejected ("missing skeleton: no draw() function"), gate 0."""
    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.train.model import SYSTEMS
    from aquarelle.train.tool_env import submit_sketch

    setup_only = ("function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); translate(-width / 2, "
                  "-height / 2); background('#fffaf0'); brush.fill('#3a7bd5', 120); brush.circle(450, 450, 80); }")
    assert "no draw() function" in run_sketch(setup_only, action_space="hf10").reason
    for text in (SYSTEMS["sketch"], SYSTEMS["revise"], submit_sketch.__doc__):
        assert "draw()" in text and "WEBGL" in text and "angleMode(DEGREES)" in text and "-width/2" in text
    as_told = ("function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\n"
               "function draw() { translate(-width / 2, -height / 2); background('#fffaf0'); "
               "brush.fill('#3a7bd5', 120); brush.circle(450, 450, 80); }")
    r = run_sketch(as_told, action_space="hf10")
    assert r.ok and r.program.commands[-1].args[:2] == [450, 450]


def test_fills_opacity_description_says_what_0_does():
    """p5.brush reads fill(c, 0) as its default 150 (``|| 150``); the description said 0-255."""
    env = PaintingToolEnv()
    desc = get_json_schema(type(env).fill)["function"]["parameters"]["properties"]["opacity"]["description"]
    assert "0 is read as the default, 150" in desc
    env.reset(prompt="a boat", seed=1)
    assert env.fill("red", 0).startswith("Set fill(#ff0000, 150)")


def test_the_steps_left_come_before_warnings_so_the_cap_keeps_them():
    """A warning stood before the steps left, and at the trainer's 120 characters pushed them off: after an
    off-canvas circle, and on every step of an open shape."""
    from aquarelle.train.config import EnvSection

    env = make_tool_env(mode="tools", action_space="full", max_steps=16,
                        obs_chars=EnvSection().observation_chars)()
    env.reset(prompt="a boat", seed=1)
    env.fill("#8a9a9a", 90)
    out = env.circle(700, 300, 20)
    assert "14 steps left." in out and len(out) <= 120
    assert "13 steps left." in env.beginShape(0.5) and "12 steps left." in env.vertex(10, 10)


def test_a_setting_after_paint_does_not_say_nothing_is_painted():
    env = PaintingToolEnv()
    env.reset(prompt="a red apple", seed=1)
    assert "(nothing painted yet)" in env.fill("red")
    env.circle(300, 300, 100)
    out = env.noFill()
    assert out.startswith("Set noFill(). Coverage 9") and "nothing painted" not in out


def test_a_call_that_changes_no_pixel_is_said_to_and_the_last_step_is_one():
    """A circle enclosing the whole canvas paints nothing (in p5.brush too), and the policy was told only
    "Painted circle(...) ... (+0.0 pts)", as for a shape painted over painted ground; the steps ran down to
    "1 steps left."."""
    env = make_tool_env(mode="tools", action_space="full", max_steps=5)()
    env.reset(prompt="a red apple", seed=1)
    env.fill("#d7263d", 200)
    out = env.circle(300, 300, 2000)
    assert "Warning: circle changed no pixel." in out and "3 steps left." in out
    out = env.circle(300, 300, 100)
    assert "changed no pixel" not in out and "Coverage 7" in out
    out = env.arc(300, 300, 100, 0, 360)
    assert out.startswith("Painted arc(300, 300, 100, 0, 360).") and "1 step left. Warning: arc changed no pixel." in out


def test_tool_parameters_name_their_defaults_and_bounds():
    """TRL's schema marks a parameter optional but carries no default: a bare fillTexture() set 0.4 and 0.4, under
    p5.brush's starting 0.8 and 0.5, unseen; circle's irregularity and a brush's weight had bounds only in errors."""
    tools = type(make_tool_env(action_space="full")())
    tex = get_json_schema(tools.fillTexture)["function"]
    assert "0.8 and 0.5 until it is first called" in tex["description"]
    assert [p["description"] for p in tex["parameters"]["properties"].values()] == [
        "a number from 0 to 1 (default 0.4).", "a number from 0 to 1 (default 0.4).", "true or false (default true)."]
    props = get_json_schema(tools.circle)["function"]["parameters"]["properties"]
    assert props["irregularity"]["description"].endswith("-10 to 10 (default 0).") and "default" not in props["r"]["description"]
    assert get_json_schema(tools.fillBleed)["function"]["parameters"]["properties"]["direction"]["description"] \
        == '"out" or "in" (default "out").'
    assert "up to 1000" in get_json_schema(tools.add)["function"]["parameters"]["properties"]["params"]["description"]
    env = tools()
    env.reset(prompt="a boat", seed=1)
    with pytest.raises(ToolError, match="irregularity must be in -10 to 10"):
        env.circle(300, 300, 50, 11)
    from aquarelle.brush import PaintState, validate

    state = PaintState()
    assert (state.fill.texture, state.fill.border) == (0.8, 0.5)  # what the description says of before any call
    state.apply(validate("fillTexture", []))
    assert (state.fill.texture, state.fill.border, state.fill.scatter) == (0.4, 0.4, True)


def test_the_sketch_prompts_say_what_scores_0_and_it_does():
    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.train.model import SYSTEMS

    for mode in ("sketch", "revise"):
        assert "draws with p5 itself (ellipse, rect, text) scores 0" in SYSTEMS[mode]
        assert "brush methods the task lists and background" in SYSTEMS[mode]
    head = "function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\nfunction draw() { translate(-width / 2, -height / 2); background('#fffaf0'); "
    assert run_sketch(head + "brush.fill('#3a7bd5', 120); brush.circle(300, 300, 80); }", action_space="hf10").ok
    for body in ("ellipse(300, 300, 80, 80); }", "rect(10, 10, 80, 80); }", "text('hi', 10, 10); }",
                 "brush.fill('#3a7bd5', 120); brush.rect(10, 10, 80, 80); }"):
        assert run_sketch(head + body, action_space="hf10").violations, body


def test_angle_descriptions_say_the_sense_the_renderer_paints():
    """An angle was only "degrees": on a y-down canvas a policy could not tell which way 90 points."""
    import numpy as np

    from aquarelle.brush import Program
    from aquarelle.render import render_program

    tools = type(make_tool_env(action_space="full")())
    arc = get_json_schema(tools.arc)["function"]
    assert "counter-clockwise on screen" in arc["description"] and "360 degrees draws nothing" in arc["description"]
    assert arc["parameters"]["properties"]["start"]["description"] == \
        "degrees, counter-clockwise on screen (0 points right, 90 up)."

    def centre(*calls):
        img = render_program(Program.from_calls([("set", ["pen", "black", 3]), *calls]), seed=1).astype(int)
        ys, xs = np.nonzero((255 - img).sum(2) > 60)
        return (xs.mean(), ys.mean()) if len(xs) else None

    x, y = centre(("flowLine", [300, 300, 200, 90]))
    assert abs(x - 300) < 5 and y < 250  # 90 is up
    x, y = centre(("arc", [300, 300, 200, 0, 90]))
    assert x > 350 and y < 250  # from the right, up: the upper right quarter
    assert centre(("arc", [300, 300, 200, 30, 390])) is None


def test_a_row_without_a_prompt_paints_the_environments_default_subject():
    """The task read "Paint: . Canvas 600x600 ..." where the environment itself paints "a watercolour painting"."""
    from aquarelle.train.tool_env import PaintingToolEnv

    assert PaintingToolEnv().reset().lstrip().startswith("Paint: a watercolour painting. Canvas 600x600")
