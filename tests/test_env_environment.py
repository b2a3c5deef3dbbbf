"""WatercolourEnvironment in-process: reset keywords, atomic tool steps, per-episode weights, step budget."""

from __future__ import annotations

import pytest

from aquarelle.env.environment import WatercolourEnvironment
from aquarelle.env.models import WatercolourAction


@pytest.fixture(scope="module")
def env():
    return WatercolourEnvironment()


def test_reset_rejects_bad_keywords_in_one_line(env):
    with pytest.raises(ValueError, match=r"unknown keyword\(s\) colour"):
        env.reset(colour="red")
    with pytest.raises(ValueError, match="max_steps must be an integer"):
        env.reset(max_steps=0)
    with pytest.raises(ValueError, match="either preset or weights"):
        env.reset(preset="hps-led", weights={"judge": 1.0})
    with pytest.raises(ValueError, match="unknown reward preset"):
        env.reset(preset="nope")
    with pytest.raises(ValueError, match="exactly one of"):
        WatercolourAction(sketch="x", finish=True)


def test_reset_and_finish_take_only_their_own_types(env):
    """``mode: 0`` or ``false`` or ``""`` was tools mode and ``finish: "yes"`` or ``1`` ended an episode; a prompt or
    episode id of any length was echoed in every observation."""
    from pydantic import ValidationError

    from aquarelle.env.environment import MAX_EPISODE_ID_CHARS, MAX_PROMPT_CHARS

    for mode in (0, False, "", ["tools"]):
        with pytest.raises(ValueError, match="mode must be one of sketch, tools, revise, got "):
            env.reset(mode=mode)
    for prompt in (0, False):
        with pytest.raises(ValueError, match="prompt must be a string, got "):
            env.reset(prompt=prompt)
    for finish in ("yes", "no", 1, 0):
        with pytest.raises(ValidationError, match="valid boolean"):
            WatercolourAction.model_validate({"finish": finish})
    with pytest.raises(ValueError, match=f"prompt has at most {MAX_PROMPT_CHARS} characters, got 10000"):
        env.reset(prompt="a" * 10_000)
    with pytest.raises(ValueError, match=f"episode_id has at most {MAX_EPISODE_ID_CHARS} characters, got 300"):
        env.reset(episode_id="e" * 300)
    obs = env.reset(mode="tools", prompt="p" * MAX_PROMPT_CHARS, episode_id="e" * MAX_EPISODE_ID_CHARS)
    assert obs.metadata["mode"] == "tools" and env.state.prompt == "p" * MAX_PROMPT_CHARS
    assert env.step(WatercolourAction.model_validate({"finish": True})).done


def test_a_failing_call_applies_nothing_from_its_action(env):
    env.reset(mode="tools", max_steps=5)
    obs = env.step(WatercolourAction(calls=[{"method": "fill", "args": ["#112233", 200]},
                                            {"method": "circle", "args": [300, 300, "big"]}]))
    assert obs.errors == ["call 2: circle: r must be a number, got 'big'"]
    assert env.state.program["commands"] == [] and obs.metadata["steps_left"] == 4
    obs = env.step(WatercolourAction(calls=[{"method": "circle", "args": [300, 300, 50]}]))
    assert obs.errors == [] and "painted nothing" in obs.text  # no fill on yet: a warning, not an error


def test_a_shape_off_the_canvas_is_said_to_be(env):
    """A policy put its circles at x 720 and y 980 and was told only "Coverage 0.0%": a shape whose own geometry
    misses the canvas now comes with a warning saying where it lies (not an error: it is valid p5.brush)."""
    env.reset(mode="tools", max_steps=6, action_space="full")
    obs = env.step(WatercolourAction(calls=[{"method": "fill", "args": ["#112233", 200]},
                                            {"method": "circle", "args": [720, 400, 60]}]))
    assert obs.errors == [] and "circle lies off the 600x600 canvas (it spans x 660 to 780, y 340 to 460)" in obs.text
    obs = env.step(WatercolourAction(calls=[{"method": "rect", "args": [-60, 100, 100, 80, "center"]},
                                            {"method": "circle", "args": [590, 300, 60]}]))
    assert "rect lies off" in obs.text and "circle lies off" not in obs.text  # the circle reaches in
    obs = env.step(WatercolourAction(calls=[{"method": "polygon", "args": [[[10, 700], [90, 650], [50, 990]]]}]))
    assert "polygon lies off" in obs.text


def test_a_frame_is_not_a_tool_call(env):
    """``frame`` is how the sandbox records a sketch's rotate/scale at a filled shape; it belongs to every action
    space for sketches, but a tool call's coordinates are the canvas's, so as a tool call it is refused in one line
    and nothing of the step applies."""
    env.reset(mode="tools", max_steps=6, action_space="full")
    obs = env.step(WatercolourAction(calls=[{"method": "fill", "args": ["#112233", 200]},
                                            {"method": "frame", "args": [0, 1, -1, 0, 300, 300]},
                                            {"method": "rect", "args": [0, 0, 50, 50]}]))
    assert obs.errors == ["call 2: frame is not a tool: a tool call's coordinates are the canvas's"], obs.errors
    assert env.state.program["commands"] == []


def test_weights_are_per_episode(env):
    for preset, judge in (("hps-only", 0.0), ("judge-led", 0.60)):
        env.reset(mode="tools", preset=preset)
        env.step(WatercolourAction(calls=[{"method": "fill", "args": ["#d7263d", 220]},
                                          {"method": "circle", "args": [300, 300, 150]}]))
        obs = env.step(WatercolourAction(finish=True))
        assert obs.done and env.state.weights["judge"] == pytest.approx(judge)
        if judge == 0.0:
            assert obs.breakdown["judge"] is None  # a zero-weight term is not computed
    env.reset(mode="tools", weights={"judge": 0.2, "preference": 0.7})
    env.step(WatercolourAction(finish=True))
    assert env.state.weights["preference"] == pytest.approx(0.7)


def test_small_step_renders_still_score_full_size():
    import base64
    import io

    import numpy as np
    from PIL import Image

    from aquarelle.brush import Program
    from aquarelle.env import incremental
    from aquarelle.render import render_program

    small = WatercolourEnvironment(step_render_size=150)
    small.reset(mode="tools", seed=5, return_image=True)
    obs = small.step(WatercolourAction(calls=[{"method": "fill", "args": ["#1b998b", 220]},
                                              {"method": "circle", "args": [300, 300, 150]}]))
    step_cov = obs.coverage
    # the step's image is the episode's kept (incremental) canvas resampled, as a full render at that size is
    shown = np.asarray(Image.open(io.BytesIO(base64.b64decode(obs.image_png_b64))).convert("RGB"))
    assert shown.shape == (150, 150, 3) and small.state.episode_id in incremental._CACHE
    assert np.array_equal(shown, render_program(Program.from_json(small.state.program), seed=5, size=150))
    final = small.step(WatercolourAction(finish=True))
    assert step_cov > 0.1 and final.coverage > 0.1
    assert abs(step_cov - final.coverage) < 0.05 and final.reward is not None


def _png_size(b64: str) -> tuple[int, int]:
    import base64
    import io

    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(b64))).size


def test_a_resets_image_size_is_that_episodes_render_and_score_size():
    """``image_size`` with the reset decides the episode's images over the environment's own render size, so a
    run's ``env.image_size`` holds wherever the environment runs; the server's smaller step size still applies
    to step images, never larger than the scored one; omitted, the environment's own size, as before."""
    env = WatercolourEnvironment(render_size=200, step_render_size=150)
    paint = [{"method": "fill", "args": ["#1b998b", 220]}, {"method": "circle", "args": [300, 300, 150]}]
    for size, step_size in ((128, 128), (400, 150), (None, 150)):
        obs = env.reset(mode="tools", seed=5, return_image=True, image_size=size)
        assert _png_size(obs.image_png_b64) == (step_size, step_size)  # the blank canvas, as the steps' images
        obs = env.step(WatercolourAction(calls=paint))
        assert _png_size(obs.image_png_b64) == (step_size, step_size) and obs.coverage > 0.1
        obs = env.step(WatercolourAction(finish=True))
        final = size or 200
        assert obs.reward is not None and _png_size(obs.image_png_b64) == (final, final)
    obs = env.reset(mode="revise", return_image=True, image_size=100)  # sketch images: the scored size
    assert _png_size(obs.image_png_b64) == (100, 100)
    obs = WatercolourEnvironment().reset(mode="tools", return_image=True)  # no sizes anywhere: the 600 canvas
    assert _png_size(obs.image_png_b64) == (600, 600)


def test_closed_session_refuses_steps():
    e = WatercolourEnvironment()
    e.reset()
    e.close()
    with pytest.raises(RuntimeError, match="reconnect and reset"):
        e.step(WatercolourAction(calls=[]))


def test_closed_session_state_says_so():
    """After the idle reaper closes a session its state was an empty default episode, with no error."""
    e = WatercolourEnvironment()
    e.reset(episode_id="mine")
    assert e.state.episode_id == "mine"
    e.close()
    with pytest.raises(RuntimeError, match="session was closed .* reconnect and reset"):
        e.state


LOOP = "function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { while (true) {} }\n"
PAINT = WatercolourAction(calls=[{"method": "fill", "args": ["#d7263d", 220]},
                                 {"method": "circle", "args": [300, 300, 150]}])


def test_a_worker_that_dies_in_a_job_is_an_infrastructure_failure_not_a_zero():
    import os
    import signal
    import threading
    import time

    import psutil

    from aquarelle.env.work import Runner

    runner = Runner(1)
    try:
        runner.warm()
        e = WatercolourEnvironment(runner)
        e.reset(mode="sketch")
        worker = psutil.Process(runner.worker_pids()[0])
        out = {}
        t = threading.Thread(target=lambda: out.update(obs=e.step(WatercolourAction(sketch=LOOP))))
        t.start()
        time.sleep(1.0)  # the job is in the worker (the loop runs to the sandbox's 5 s limit)
        os.kill(worker.pid, signal.SIGKILL)
        t.join(60)
        obs = out["obs"]
        assert obs.done and obs.reward is None
        assert obs.errors == ["infrastructure: evaluation worker died (pool restarted); try again"]
        assert "No reward" in obs.text
        e.reset(mode="tools")  # the next episode gets a fresh pool
        assert e.step(PAINT).coverage > 0.1
    finally:
        runner.close()


def test_a_worker_that_died_idle_is_replaced_and_the_next_job_runs():
    """A worker killed while idle (the OOM killer overnight) failed the next, unrelated step with "worker died":
    that job had never run, so it runs on a fresh worker."""
    import os
    import signal
    from multiprocessing.connection import wait

    from aquarelle.env.work import Runner

    runner = Runner(1)
    try:
        e = WatercolourEnvironment(runner)
        e.reset(mode="tools")
        assert e.step(PAINT).coverage > 0.1  # the worker is up
        (worker,) = runner._pools[0]._processes.values()
        os.kill(worker.pid, signal.SIGKILL)
        # wait until it is dead: its sentinel is readable once its last thread has exited. A zombie main thread is
        # not enough (the test waited for one and failed in ~1 of 25 runs): while the worker's other threads are
        # still exiting, waitpid and the sentinel both say it runs, so the job was handed to it and it died there
        assert wait([worker.sentinel], timeout=10)
        e.reset(mode="tools")
        obs = e.step(PAINT)
        assert obs.errors == [] and obs.coverage > 0.1
        obs = e.step(WatercolourAction(finish=True))
        assert obs.done and obs.reward is not None and obs.errors == []
        assert runner.worker_pids() and worker.pid not in runner.worker_pids()
    finally:
        runner.close()


def test_a_worker_reaped_by_someone_else_counts_as_dead():
    """A dead worker reaped by anyone but multiprocessing (psutil's ``wait()``, a library's ``waitpid``) is alive
    forever to ``is_alive()``: its waitpid gets ECHILD and answers True, so the runner kept handing jobs to a pool
    about to break ("worker died" for jobs that never ran). The runner asks the worker's sentinel instead."""
    import multiprocessing as mp
    import os
    import signal
    import time
    from types import SimpleNamespace

    from aquarelle.env.work import _workers_alive

    # a bare process in the pool's place: a real pool's thread would race this test for the reaping
    proc = mp.get_context("spawn").Process(target=time.sleep, args=(60,))
    proc.start()
    pool = SimpleNamespace(_processes={proc.pid: proc})
    try:
        assert _workers_alive(pool)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        os.waitpid(proc.pid, 0)  # reaped, as the pool's thread does, before multiprocessing records it
    assert proc.is_alive()  # the wrong answer this guards against
    assert not _workers_alive(pool)


def test_an_infrastructure_failure_in_a_tools_step_uses_no_step():
    """The step was counted before rendering and kept when the renderer failed: our failure used up the
    policy's step budget (and on its last step, ended the episode)."""
    from aquarelle.env.work import Runner

    runner = Runner(1)
    try:
        runner.warm()
        e = WatercolourEnvironment(runner)
        e.reset(mode="tools", max_steps=1)
        runner.timeout_s = 0.001  # no render finishes in time: the worker is restarted, the step fails
        obs = e.step(PAINT)
        assert obs.errors and obs.errors[0].startswith("infrastructure: evaluation took longer than")
        assert not obs.done and "no step used" in obs.text and obs.metadata["steps_left"] == 1
        assert e.state.step_count == 0 and e.state.n_calls == 0
        runner.timeout_s = 300.0
        obs = e.step(PAINT)
        assert obs.done and obs.reward is not None and obs.coverage > 0.1
    finally:
        runner.close()


def test_a_job_past_the_timeout_stops_its_worker_and_the_jobs_behind_it_run():
    """A job that outlives the timeout keeps its worker busy: the worker is stopped, and a job that was waiting
    behind it (another session's) runs on the fresh worker instead of timing out too."""
    import threading
    import time

    from aquarelle.env.work import EvalRequest, Runner

    loop = "function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { while (true) {} }\n"
    paint = EvalRequest(mode="tools", program={"commands": [{"method": "fill", "args": ["#d7263d", 220]},
                                                            {"method": "circle", "args": [300, 300, 150]}]})
    runner = Runner(1)
    try:
        runner.warm()
        first = runner.worker_pids()
        runner.timeout_s = 1.5  # the sandbox lets the loop run 5 s
        out = {}
        slow = threading.Thread(target=lambda: out.update(slow=runner.evaluate(EvalRequest(mode="sketch",
                                                                                           source=loop))))
        slow.start()
        time.sleep(0.3)
        queued = runner.evaluate(paint)  # submitted behind the loop, on the same worker
        slow.join()
        assert out["slow"].infra_error == "evaluation took longer than 1.5 s (its worker was restarted)"
        assert queued.infra_error is None and queued.coverage > 0.1
        assert runner.worker_pids() and runner.worker_pids() != first
        assert runner.evaluate(paint).coverage > 0.1
    finally:
        runner.close()


def test_incremental_step_images_equal_full_renders():
    import base64
    import io

    import numpy as np
    from PIL import Image

    from aquarelle.brush import Program
    from aquarelle.env import incremental
    from aquarelle.render import render_program

    e = WatercolourEnvironment()
    e.reset(mode="tools", seed=11, return_image=True, action_space="full")
    steps = [
        [{"method": "fill", "args": ["#d7263d", 200]}, {"method": "circle", "args": [300, 300, 120]}],
        [{"method": "fillBleed", "args": [0.3]}, {"method": "circle", "args": [180, 200, 60]}],
        [{"method": "set", "args": ["HB", "#222222", 2]}, {"method": "line", "args": [10, 10, 500, 500]}],
        [{"method": "line", "args": [10, 500, 500, 10]}, {"method": "fill", "args": ["#f4d35e", 200]}],
        [{"method": "beginShape", "args": [0.5]}, {"method": "vertex", "args": [50, 50]},
         {"method": "vertex", "args": [200, 60]}, {"method": "vertex", "args": [120, 200]},
         {"method": "endShape", "args": [True]}],
    ]
    for calls in steps:
        obs = e.step(WatercolourAction(calls=calls))
        assert obs.errors == []
        shown = np.asarray(Image.open(io.BytesIO(base64.b64decode(obs.image_png_b64))).convert("RGB"))
        full = render_program(Program.from_json(e.state.program), seed=11)
        assert np.array_equal(shown, full)
        # it was painted incrementally: the kept canvas holds exactly this episode's calls
        assert len(incremental._CACHE[e.state.episode_id].cmds) == len(e.state.program["commands"])
    e.step(WatercolourAction(finish=True))
    assert e.state.episode_id not in incremental._CACHE  # dropped when the episode ends


def test_incremental_renders_take_the_seed_as_the_full_render_does():
    """p5.brush hashes the seed's text, so the incremental painter must get the seed itself: a seed folded to a
    48-bit number first (-5 became 281474976710651) painted another painting than the full render."""
    import numpy as np

    from aquarelle.brush import Program
    from aquarelle.env import incremental
    from aquarelle.render import render_program

    prog = Program.from_calls([("fill", ["#d7263d", 200]), ("circle", [300, 300, 120])])
    for seed in (-5, 2**50 + 3, 7):
        got, _ = incremental.render_incremental(f"seed-test-{seed}", prog, seed)
        assert np.array_equal(got, render_program(prog, seed=seed)), seed
        incremental._CACHE.clear()


def test_the_kept_canvas_loses_strokes_after_a_nan_tip_as_the_full_render_does():
    """Strokes pending after a marker tip of NaN pressure composite nothing (``Compositor.stroke_state``, as in
    p5.brush). A step's image is a flushed copy of the kept canvas: the copy's flush must not clear the painter's
    own mark, or the strokes of the next steps would be painted where the full render loses them."""
    import numpy as np

    from aquarelle.brush import Program
    from aquarelle.env import incremental
    from aquarelle.render import render_program

    calls = [("set", ["marker", "#202020", 2]), ("line", [100, 200, 400, 200]), ("flowLine", [100, 100, 0, 30]),
             ("line", [100, 300, 400, 300]), ("line", [100, 400, 400, 400]), ("set", ["marker", "#2020a0", 2]),
             ("line", [100, 500, 400, 500])]
    for n in range(1, len(calls) + 1):
        prog = Program.from_calls(calls[:n], seed=7)
        got, _ = incremental.render_incremental("nan-tip", prog, 7)
        assert np.array_equal(got, render_program(prog, seed=7)), n
    assert (got[150:450] < 240).sum() == 0 and (got[480:520] < 240).any()  # lost, then a new colour paints
    incremental._CACHE.clear()


def test_a_sketch_that_seeds_itself_is_painted_and_scored_with_its_own_seed():
    """A sketch opening with ``randomSeed(42)`` is p5.brush's painting under seed 42: its program says 42, and the
    exported sketch, ``aquarelle render`` and the run directory's images paint it so. The environment painted and
    scored it under the reset's seed instead (0 when none was given): another painting than the one kept."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    from aquarelle.brush import Program
    from aquarelle.render import render_program

    sketch = ("function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); randomSeed(42); }\n"
              "function draw() { translate(-width / 2, -height / 2); brush.noStroke(); brush.fill('#d7263d', 200);"
              " brush.fillBleed(0.4); brush.fillTexture(0.6, 0.4); brush.circle(300, 300, 150, 0.6); }")
    e = WatercolourEnvironment()
    e.reset(mode="sketch", seed=0, return_image=True)
    obs = e.step(WatercolourAction(sketch=sketch))
    assert obs.errors == [] and e.state.program["seed"] == 42
    shown = np.asarray(Image.open(io.BytesIO(base64.b64decode(obs.image_png_b64))).convert("RGB"))
    prog = Program.from_json(e.state.program)
    assert np.array_equal(shown, render_program(prog))
    assert not np.array_equal(shown, render_program(prog, seed=0))


def test_an_environments_own_sizes_are_bounded_as_a_resets_image_size():
    """``render_size`` and ``step_render_size`` were taken unchecked (3000 px step images; 10^6 would ask the
    renderer for terabytes); a server checks them when the app is made, not at each session's start."""
    from aquarelle.env.server import create_server_app

    for kw in ({"render_size": 3000}, {"step_render_size": 10}, {"render_size": True}, {"step_render_size": 150.0}):
        name = next(iter(kw))
        with pytest.raises(ValueError, match=rf"^{name} must be an integer from 32 to 2048 \(pixels\) or None, got "):
            WatercolourEnvironment(**kw)
        with pytest.raises(ValueError, match=rf"^{name} must be an integer from 32 to 2048"):
            create_server_app(workers=0, **kw)
    from typer.testing import CliRunner

    from aquarelle.cli import app

    r = CliRunner().invoke(app, ["serve", "--port", "9", "--step-size", "5000"])
    said = " ".join(r.output.replace("│", " ").split())  # typer's usage box wraps the line
    assert r.exit_code == 2 and "--step-size: must be 0 (the episode's size) or 32-2048 pixels, got 5000" in said, said


def test_fast_coverage_is_the_reference_definition():
    import numpy as np

    from aquarelle.env.work import fast_coverage
    from aquarelle.render.coverage import COVERAGE_TOLERANCE, coverage

    rng = np.random.default_rng(0)
    t = COVERAGE_TOLERANCE
    for bg in ((255, 255, 255), (0, 0, 0), (250, 240, 200), (t, 255 - t, 128)):
        img = np.empty((64, 64, 3), np.uint8)
        img[:] = bg
        noise = rng.integers(-2 * t, 2 * t + 1, size=img.shape)
        mask = rng.random(img.shape[:2]) < 0.5
        img[mask] = np.clip(img[mask].astype(int) + noise[mask], 0, 255)
        assert fast_coverage(img, bg) == coverage(img, background=bg)
        assert fast_coverage(np.full((8, 8, 3), bg, np.uint8), bg) == 0.0


# --------------------------------------------------------------------------- hostile input: one clear line each


def test_reset_names_the_argument_with_the_wrong_type(env):
    from aquarelle.env.environment import ResetError

    for kw, msg in (({"episode_id": 5}, "episode_id must be a string, got int 5"),
                    ({"episode_id": ["a"]}, "episode_id must be a string, got list"),
                    ({"action_space": 7}, "action_space must be a name or a list of method names, got 7"),
                    ({"action_space": []}, "action_space is empty"),
                    ({"return_image": "no"}, "return_image must be true .* got 'no'"),
                    ({"prompt": "a cat \ud800"},
                     r"prompt is not valid Unicode text: a lone UTF-16 surrogate \(\\ud800\)"),
                    ({"mode": "x" * 1_000_000}, "mode must be one of"),
                    # a list or object preset was TypeError "unhashable type: 'list'" (HTTP /reset: a bare 500)
                    ({"preset": ["judge-led"]}, r"preset must be a preset name .* got list \['judge-led'\]"),
                    ({"preset": {"a": 1}}, "preset must be a preset name .* got dict"),
                    ({"weights": []}, r"weights must be a mapping of .* got list \[\]"),  # was read as no weights
                    *(({"image_size": v}, rf"image_size must be an integer from 32 to 2048 .* got {shown}")
                      for v, shown in ((0, "0"), (10**6, "1000000"), ("big", "'big'"), (True, "True"),
                                       (128.0, "128.0"), (2049, "2049"), ([128], r"\[128\]")))):
        with pytest.raises(ResetError, match=msg) as ei:
            env.reset(**kw)
        assert len(str(ei.value)) < 200 and "\n" not in str(ei.value)
        str(ei.value).encode("utf-8")  # a reply can carry it


def test_bad_actions_fail_validation_with_json_safe_errors():
    import json
    import time

    from pydantic import ValidationError

    from aquarelle.env.models import MAX_EPISODE_COMMANDS, MAX_SKETCH_CHARS

    for action, msg in (({}, "exactly one of 'sketch', 'calls' or 'finish' (got none)"),
                        ({"sketch": "x", "calls": []}, "(got sketch, calls)"),
                        ({"calls": [{"method": "fill"}] * 900_000}, f"at most {MAX_EPISODE_COMMANDS} calls"),
                        ({"sketch": "x" * (MAX_SKETCH_CHARS + 1)}, f"at most {MAX_SKETCH_CHARS} characters"),
                        ({"calls": [{"method": "f" * 1000}]}, "a method name has at most 64 characters")):
        t0 = time.perf_counter()
        with pytest.raises(ValidationError) as ei:
            WatercolourAction.model_validate(action)
        assert time.perf_counter() - t0 < 0.5  # a huge list is refused by its length, not item by item
        errors = ei.value.errors(include_input=False)
        assert msg in errors[0]["msg"]
        json.dumps(errors)  # OpenEnv sends these: a ValueError in ctx made the session die


def test_text_that_is_not_unicode_costs_no_step(env):
    env.reset(mode="tools", max_steps=5)
    for calls in ([{"method": "\ud800"}], [{"method": "fill", "args": ["#112233", 200]},
                                           {"method": "fill", "args": [["\udfff"], 200]}]):
        obs = env.step({"calls": calls})
        assert "not valid Unicode text" in obs.errors[0] and obs.metadata["steps_left"] == 5
        obs.model_dump_json()
    assert env.state.n_calls == 0
    assert env.step({"calls": [{"method": "fill", "args": ["#112233", 200]}]}).errors == []


def test_a_sketch_that_is_not_unicode_is_the_models_fault():
    e = WatercolourEnvironment()
    e.reset(mode="sketch")
    obs = e.step({"sketch": "function setup() { createCanvas(600, 600, WEBGL); let s = '\ud800'; }"})
    assert obs.done and obs.reward == 0.0 and obs.breakdown["gate"] == 0.0
    assert any("not valid Unicode text" in x for x in obs.errors), obs.errors
    assert not any(x.startswith("infrastructure") for x in obs.errors), obs.errors
    obs.model_dump_json()
    assert "\\ud800" in e.state.model_dump_json()  # kept escaped: state still serialises


def test_an_episode_holds_a_bounded_amount_of_argument_data(env):
    """5,000 calls bound an episode's render work, not its data: each addField may hold a 200x200 grid, and state
    calls are kept without a render. Measured on the server: 25 full grids a step (3.9 MB frames) grew the server
    process 55 MB a step and each step took longer than the last (copying the state): 9 s at the 12th, with 190 more
    allowed. The numbers an episode holds are bounded; a step past it is refused with one line and applies nothing."""
    from aquarelle.env.models import MAX_EPISODE_VALUES

    grid = [[1.5] * 200 for _ in range(200)]
    env.reset(mode="tools", action_space="full", max_steps=1000)
    for i in range(MAX_EPISODE_VALUES // 40_000 - 1):
        assert env.step({"calls": [{"method": "addField", "args": [f"f{i}", grid]}]}).errors == []
    held, steps_left = env.state.n_calls, env.state.steps_left
    obs = env.step({"calls": [{"method": "addField", "args": [f"g{i}", grid]} for i in range(2)]})
    assert obs.errors and f"at most {MAX_EPISODE_VALUES} numbers" in obs.errors[0] and "\n" not in obs.errors[0]
    assert env.state.n_calls == held and obs.metadata["steps_left"] == steps_left - 1  # a refused step, as any
    obs = env.step({"calls": [{"method": "fill", "args": ["#112233", 200]}, {"method": "circle", "args": [300, 300, 50]}]})
    assert obs.errors == [] and obs.coverage > 0


def test_in_process_environments_each_score_with_their_own_reward_config():
    """Two in-process environments in one process (as two tool env classes, or a SketchScorer next to a tool env,
    would make them), configured differently, each score with their own config, whichever was made last; an
    environment given no config scores with the embedded defaults, not with another's."""
    from aquarelle.env.work import Runner
    from aquarelle.rewards import RewardConfig, RewardModel

    hps = WatercolourEnvironment(Runner(0, reward_config={"preset": "hps-only"}))
    small = WatercolourEnvironment(Runner(0, reward_config=RewardConfig(preset="judge-led", render_size=64)))
    plain = WatercolourEnvironment()
    paint = WatercolourAction(calls=[{"method": "fill", "args": ["#d7263d", 220]},
                                     {"method": "circle", "args": [300, 300, 150]}])

    def score(e):
        e.reset(mode="tools", seed=3)
        e.step(paint)
        obs = e.step(WatercolourAction(finish=True))
        assert obs.done and obs.reward is not None, obs.errors
        return obs, e.state.weights

    obs, weights = score(hps)
    assert weights["judge"] == 0.0 and weights["preference"] == pytest.approx(0.9)
    assert obs.breakdown["judge"] is None and obs.breakdown["preference"] is not None
    s_obs, s_weights = score(small)
    d_obs, d_weights = score(plain)
    assert s_weights == d_weights and s_weights["judge"] == pytest.approx(0.6)
    assert s_obs.breakdown["judge"] is not None and d_obs.breakdown["judge"] is not None
    # each as RewardModel scores the same picture with that config (the 64 px local scorers see another picture)
    from aquarelle.brush import Program
    from aquarelle.render import render_program

    img = render_program(Program.from_json(plain.state.program), seed=3)
    for obs, cfg in ((s_obs, RewardConfig(preset="judge-led", render_size=64)), (d_obs, RewardConfig())):
        want = RewardModel(cfg).score(image=img, program=Program.from_json(plain.state.program), mode="tools",
                                      group_seed=3)
        assert obs.reward == pytest.approx(want.reward) and obs.breakdown == pytest.approx(want.breakdown)
    assert s_obs.breakdown["preference"] != d_obs.breakdown["preference"]
    assert score(hps)[1]["judge"] == 0.0  # and again after the others scored


def test_reward_models_are_kept_per_config_and_per_what_it_reads_from_the_environment(monkeypatch):
    from aquarelle.env.work import reward_model
    from aquarelle.rewards import RewardConfig

    monkeypatch.delenv("AQUARELLE_JUDGE_URL", raising=False)
    default = reward_model(None)
    assert reward_model({}) is default and reward_model(RewardConfig()) is default  # one model per config
    assert reward_model({"preset": "hps-only"}) is not default
    monkeypatch.setenv("AQUARELLE_JUDGE_URL", "http://127.0.0.1:9/v1")  # the same config now names another judge
    other = reward_model(None)
    assert other is not default and other.config.resolved_judge_url() == "http://127.0.0.1:9/v1"


def test_incremental_renders_say_whether_the_steps_calls_changed_a_pixel():
    """Coverage cannot tell a call that painted nothing (a circle enclosing the canvas) from one painted over
    painted ground; the kept canvas can. Asked after a cache miss, or after a step that painted past ``since``
    (a replayed episode), the answer is the same."""
    import numpy as np

    from aquarelle.brush import Program
    from aquarelle.env import incremental
    from aquarelle.render import render_program

    calls = [("fill", ["#d7263d", 200]), ("circle", [300, 300, 120]), ("circle", [300, 300, 5000]),
             ("circle", [100, 100, 40])]
    progs = [Program.from_calls(calls[:n]) for n in range(1, 5)]
    want = [None, True, False, True]  # the fill itself is never asked about (a setting renders nothing)
    try:
        for n in (2, 3, 4):  # step by step, each asking about its own call
            img, changed = incremental.render_incremental("changed-1", progs[n - 1], 3, since=n - 1)
            assert changed is want[n - 1], n
            assert np.array_equal(img, render_program(progs[n - 1], seed=3))
        for n in (2, 3, 4):  # each step on a cold cache: the image before is painted to compare
            incremental._CACHE.clear()
            assert incremental.render_incremental("changed-2", progs[n - 1], 3, since=n - 1)[1] is want[n - 1], n
        incremental.render_incremental("changed-3", progs[3], 3)  # painted past since: painted again to see it
        img, changed = incremental.render_incremental("changed-3", progs[2], 3, since=2)
        assert changed is False and np.array_equal(img, render_program(progs[2], seed=3))
        assert incremental.render_incremental("changed-3", progs[2], 3, since=3)[1] is False  # nothing new
        assert incremental.render_incremental("changed-4", progs[1], 3)[1] is None  # not asked
    finally:
        incremental._CACHE.clear()


def test_a_tools_step_that_changes_no_pixel_warns_once(env):
    env.reset(mode="tools", max_steps=6, action_space="full", seed=2)
    env.step(WatercolourAction(calls=[{"method": "fill", "args": ["#112233", 200]}]))
    obs = env.step(WatercolourAction(calls=[{"method": "circle", "args": [300, 300, 3000]},
                                            {"method": "circle", "args": [300, 300, 4000]}]))
    assert obs.errors == [] and "Warning: these 2 calls changed no pixel." in obs.text
    obs = env.step(WatercolourAction(calls=[{"method": "circle", "args": [720, 400, 60]}]))
    assert "circle lies off" in obs.text and "changed no pixel" not in obs.text  # one warning says it
