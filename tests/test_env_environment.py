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


def test_a_failing_call_applies_nothing_from_its_action(env):
    env.reset(mode="tools", max_steps=5)
    obs = env.step(WatercolourAction(calls=[{"method": "fill", "args": ["#112233", 200]},
                                            {"method": "circle", "args": [300, 300, "big"]}]))
    assert obs.errors == ["call 2: circle: r must be a number, got 'big'"]
    assert env.state.program["commands"] == [] and obs.metadata["steps_left"] == 4
    obs = env.step(WatercolourAction(calls=[{"method": "circle", "args": [300, 300, 50]}]))
    assert obs.errors == [] and "painted nothing" in obs.text  # no fill on yet: a warning, not an error


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
    small = WatercolourEnvironment(step_render_size=150)
    small.reset(mode="tools")
    obs = small.step(WatercolourAction(calls=[{"method": "fill", "args": ["#1b998b", 220]},
                                              {"method": "circle", "args": [300, 300, 150]}]))
    step_cov = obs.coverage
    final = small.step(WatercolourAction(finish=True))
    assert step_cov > 0.1 and final.coverage > 0.1
    assert abs(step_cov - final.coverage) < 0.05 and final.reward is not None


def test_closed_session_refuses_steps():
    e = WatercolourEnvironment()
    e.reset()
    e.close()
    with pytest.raises(RuntimeError, match="reconnect and reset"):
        e.step(WatercolourAction(calls=[]))


def test_a_dead_worker_is_an_infrastructure_failure_not_a_zero():
    import os
    import signal

    import psutil

    from aquarelle.env.work import Runner

    runner = Runner(1)
    try:
        e = WatercolourEnvironment(runner)
        e.reset(mode="tools")
        paint = WatercolourAction(calls=[{"method": "fill", "args": ["#d7263d", 220]},
                                         {"method": "circle", "args": [300, 300, 150]}])
        assert e.step(paint).coverage > 0.1  # the worker is up
        worker = psutil.Process(next(iter(runner._pool._processes)))
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(10)
        obs = e.step(WatercolourAction(finish=True))
        assert obs.done and obs.reward is None
        assert obs.errors == ["infrastructure: evaluation worker died (pool restarted); try again"]
        assert "No reward" in obs.text
        e.reset(mode="tools")  # the next episode gets a fresh pool
        assert e.step(paint).coverage > 0.1
    finally:
        runner.close()
