"""Scorer faults: a judge endpoint that is slow, answers 500, or answers garbage.

The judge is the one boundary we cannot reach here (a 30B VLM on a GPU), so it is a local
FastAPI app on 127.0.0.1 speaking the real OpenAI chat-completions protocol; what it does
is switched per test (``JUDGE["mode"]``). What must hold: the reward is None with the
reason (never a silent 0), the episode and the training reward loop go on, the None
rewards are counted in metrics.jsonl, and ``aquarelle scorers check`` fails loudly first.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from serve_process import serve_in_thread

JUDGE = {"mode": "paint", "hits": 0, "auth": []}  # auth: the Authorization header of each request
#: The judge's timeout in these tests, and how long the "slow" judge takes: far apart, so a healthy answer from
#: the in-process server never runs out of time on a loaded machine (0.5 s once did in CI) and a slow one
#: always does.
TIMEOUT_S = 2.0
SLOW_S = 6.0
MODES = {  # mode -> words the reward's error must contain
    "slow": "timed out",
    "error500": "HTTP 500",
    "garbage": "not a chat completion",
    "malformed": "malformed",
    "no_choices": "malformed",
    "no_message": "judge reply malformed",  # these three raised AttributeError/TypeError: "scorer failed: ..."
    "message_str": "judge reply malformed",
    "content_number": "judge reply malformed",
}
#: the first choice of each malformed-shape mode
SHAPES = {"no_message": {"index": 0, "finish_reason": "stop"}, "message_str": {"index": 0, "message": "A"},
          "content_number": {"index": 0, "message": {"role": "assistant", "content": 5}}}


def judge_app() -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(req: Request):
        body = await req.json()
        JUDGE["hits"] += 1
        JUDGE["auth"].append(req.headers.get("authorization"))
        mode = JUDGE["mode"]
        if mode == "slow":
            await asyncio.sleep(SLOW_S)
        if mode == "error500":
            return JSONResponse({"error": {"message": "CUDA out of memory"}}, status_code=500)
        if mode == "garbage":
            return PlainTextResponse("<html><body>502 Bad Gateway (nginx)</body></html>", status_code=200)
        if mode == "no_choices":
            return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"], "choices": []}
        if mode in SHAPES:
            return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [SHAPES[mode]]}
        content = "I cannot decide {winner: maybe" if mode == "malformed" else json.dumps(
            {"winner": "A", "reason": "softer edges"})
        return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    return app


@pytest.fixture(scope="module")
def judge_url():
    with serve_in_thread(judge_app()) as url:
        yield url + "/v1"


@pytest.fixture(autouse=True)
def healthy_judge():
    JUDGE["mode"] = "paint"
    yield
    JUDGE["mode"] = "paint"


def reward_config(url: str) -> dict:
    return {"judge_backend": "openai", "judge_url": url, "judge_model": "judge-under-test",
            "judge_timeout_s": TIMEOUT_S, "judge_retries": 0, "judge_backoff_s": 0, "judge_image_size": 64, "render_size": 64}


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens here any more


def _program():
    from aquarelle.brush import Program

    return Program.from_calls([("fill", ["#d7263d", 200]), ("circle", [300, 300, 150]),
                               ("fill", ["#1b998b", 180]), ("circle", [150, 150, 80])])


@pytest.mark.parametrize("mode", sorted(MODES))
def test_reward_is_none_with_the_reason(judge_url, mode):
    from aquarelle.render import render_program
    from aquarelle.rewards import RewardConfig, RewardModel

    prog = _program()
    img = render_program(prog, size=200)
    model = RewardModel(RewardConfig(**reward_config(judge_url)))
    JUDGE["mode"] = mode
    r = model.score(image=img, program=prog, mode="tools", n_calls=4)
    assert r.reward is None and r.error and MODES[mode] in r.error, (mode, r.error)
    assert "\n" not in r.error
    assert r.breakdown["gate"] == 1.0  # the painting itself was fine: not a 0
    JUDGE["mode"] = "paint"
    ok = model.score(image=img, program=prog, mode="tools", n_calls=4)  # the same model recovers with the judge
    assert ok.reward is not None and ok.error is None and ok.breakdown["judge"] == 0.5  # "A" wins both orders


@pytest.mark.parametrize("backend", ["judge", "preference"])
def test_a_scorer_that_is_down_is_named_without_its_credentials(backend):
    """The reason a reward is None reaches the env client (observation text and errors): "judge unreachable at
    URL" named the configured URL whole, user:password@ and ?api_key= included, to every client of the server."""
    from aquarelle.env import WatercolourEnvironment
    from aquarelle.env.work import Runner
    from aquarelle.rewards import RewardConfig

    port = _dead_url().rsplit(":", 1)[1]
    secret = f"http://user:sk-SECRET1@127.0.0.1:{port}/v1?api_key=sk-SECRET2#t=sk-SECRET3"
    kw = ({**reward_config(secret)} if backend == "judge" else
          {"preset": "hps-only", "preference_backend": "hpsv3", "preference_url": secret, "preference_retries": 0})
    env = WatercolourEnvironment(Runner(0, reward_config=RewardConfig(**kw)))
    env.reset(mode="tools")
    env.step({"calls": [{"method": "fill", "args": ["#d7263d", 200]}, {"method": "circle", "args": [300, 300, 150]}]})
    obs = env.step({"finish": True})
    assert obs.reward is None and f"unreachable at http://127.0.0.1:{port}/v1" in obs.text, obs.text
    assert "SECRET" not in obs.model_dump_json() and "SECRET" not in env.state.model_dump_json()


def _paint(env) -> None:
    env.reset(prompt="a red sun", seed=3)
    env.fill("#d7263d", 200)
    env.circle(300, 300, 150)


def test_episodes_go_on_through_judge_faults(judge_url):
    """The TRL tool class (in-process environment): a faulty judge costs that episode its reward, nothing more."""
    from aquarelle.train import make_tool_env
    from aquarelle.train.envglue import finish_episode

    Env = make_tool_env(reward_config=reward_config(judge_url), image_size=128)
    env = Env()
    for mode in ("error500", "slow", "garbage", "paint"):
        JUDGE["mode"] = mode
        _paint(env)
        text = env.finish()
        out = finish_episode(env)
        if mode == "paint":
            assert out.reward is not None and out.reward > 0 and "Reward" in text
        else:
            assert out.reward is None and "No reward" in text, (mode, text)
            assert any(e.startswith("infrastructure:") and MODES[mode] in e for e in out.errors), out.errors
            assert out.breakdown.get("gate") == 1.0


def test_training_reward_function_counts_none_rewards_in_metrics(judge_url, tmp_path):
    """The GRPO reward function and metrics callback of aquarelle.train: None passes to TRL, the step's count shows."""
    from transformers import TrainerState

    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, env_class
    from aquarelle.train.grpo import Recorder, _metrics_callback, make_reward_func

    cfg = load_config(None, {"reward.judge_backend": "openai", "reward.judge_url": judge_url,
                             "reward.judge_model": "judge-under-test", "env.image_size": 64,
                             "reward.extra": {"judge_timeout_s": TIMEOUT_S, "judge_retries": 0, "judge_backoff_s": 0,
                                              "judge_image_size": 64, "render_size": 64,
                                              # every rollout paints the same: the in-process environments of one
                                              # config share one judge and its verdict cache (as a server worker's
                                              # sessions do), so each rollout's fault must reach the judge uncached
                                              "judge_cache_size": 0}})
    run = tmp_path / "run"
    run.mkdir()
    recorder, timer = Recorder(run, "tools", 64), EnvTimer()
    reward_fn = make_reward_func(cfg, recorder, timer, num_generations=2)
    callback = _metrics_callback(run, recorder, timer)
    Env = env_class("tools", "hf10", cfg)
    state = TrainerState()
    for step, modes in enumerate((["error500", "paint", "garbage", "paint"], ["slow", "slow", "paint", "paint"])):
        envs = []
        for mode in modes:  # each rollout's episode ends while the judge is in that mode
            env = Env()
            _paint(env)
            JUDGE["mode"] = mode
            env.finish()
            envs.append(env)
        JUDGE["mode"] = "paint"
        completions = [[{"role": "assistant", "content": "", "tool_calls": [{}, {}, {}]}] for _ in envs]
        state.global_step = step
        rewards = reward_fn(prompts=[[]] * 4, completions=completions, environments=envs, trainer_state=state,
                            painting_prompt=["a red sun"] * 4)
        assert [r is None for r in rewards] == [m != "paint" for m in modes]
        assert all(r > 0 for r in rewards if r is not None)
        state.global_step = step + 1
        callback.on_step_begin(None, state, None)
        callback.on_step_end(None, state, None)
        callback.on_log(None, state, None, logs={"loss": 0.0})
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics] == [1, 2]
    assert [m["rewards_none"] for m in metrics] == [2, 2]
    assert all(m["reward"] is not None and m["reward"] > 0 for m in metrics)  # the mean of the scored ones
    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 8
    failed = [r for r in rollouts if r["reward"] is None]
    assert len(failed) == 4 and all(any("infrastructure" in e for e in r["errors"]) for r in failed)


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", "scorers", "check", *args], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, OMP_NUM_THREADS="1"))


def test_scorers_check_fails_loudly_before_a_run(judge_url, tmp_path):
    cfg = tmp_path / "rewards.json"
    base = {k: v for k, v in reward_config(judge_url).items() if k != "render_size"}
    cfg.write_text(json.dumps({**base, "preference_backend": "hpsv3", "preference_url": _dead_url(),
                               "preference_retries": 0, "preference_timeout_s": 2}))
    for mode in ("error500", "garbage", "slow"):
        JUDGE["mode"] = mode
        r = _check("--config", str(cfg))
        assert r.returncode == 1, (mode, r.stdout, r.stderr)
        fails = [x for x in r.stderr.splitlines() if x.strip()]
        assert len(fails) == 2 and all(x.startswith("FAIL ") for x in fails), (mode, r.stderr)
        assert "judge" in fails[0] and MODES[mode] in fails[0], fails
        assert "unreachable" in fails[1] or "preference" in fails[1], fails
        assert "Traceback" not in r.stderr
    JUDGE["mode"] = "paint"
    r = _check("--config", str(cfg), "--preference-backend", "local")
    assert r.returncode == 0 and r.stdout.startswith("ok:"), (r.stdout, r.stderr)


def test_a_named_key_variable_that_is_unset_is_refused_not_replaced_by_openai_api_key(judge_url, tmp_path,
                                                                                   monkeypatch):
    """judge_api_key_env naming a variable that is not set (a typo) fell back to AQUARELLE_JUDGE_API_KEY, then
    OPENAI_API_KEY: the user's OpenAI key went to whatever host judge_url names. A named variable is the only
    source: unset or empty, score, serve, train and scorers check say so in one line, and nothing is sent."""
    from typer.testing import CliRunner

    from aquarelle.cli import app
    from aquarelle.render import render_program
    from aquarelle.rewards import RewardConfig, RewardModel
    from aquarelle.rewards.config import RewardError, check_services
    from aquarelle.train.config import ConfigError, config_from
    from aquarelle.train.preflight import check_reward

    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-OPENAI")
    monkeypatch.setenv("AQUARELLE_JUDGE_API_KEY", "sk-user-AQUARELLE")
    monkeypatch.delenv("JUDGE_KEY_TYPO", raising=False)
    conf = {**reward_config(judge_url), "judge_api_key_env": "JUDGE_KEY_TYPO"}
    cfg = tmp_path / "r.json"
    cfg.write_text(json.dumps(conf))
    prog = _program()
    img = render_program(prog, size=200)
    n0 = len(JUDGE["auth"])
    for value, said in ((None, "not set"), ("", "empty")):
        if value is not None:
            monkeypatch.setenv("JUDGE_KEY_TYPO", value)
        why = f"names JUDGE_KEY_TYPO, which is {said}"
        with pytest.raises(RewardError, match=rf"^reward config {cfg}: judge_api_key_env: {why}$"):
            check_services(RewardConfig(**conf), cfg)  # score's and serve's check at start
        r = CliRunner().invoke(app, ["score", str(tmp_path / "x.js"), "--config", str(cfg)])
        assert r.exit_code == 2 and r.output.strip() == f"reward config {cfg}: judge_api_key_env: {why}", r.output
        with pytest.raises(ConfigError, match=rf"^config key reward.judge_api_key_env: {why}$"):
            check_reward(config_from({"reward": {"judge_backend": "openai", "judge_url": judge_url,
                                                 "judge_api_key_env": "JUDGE_KEY_TYPO"}}))
        r = CliRunner().invoke(app, ["scorers", "check", "--config", str(cfg)])
        assert r.exit_code == 1 and f"FAIL judge: judge_api_key_env {why}" in r.output, r.output
        scored = RewardModel(RewardConfig(**conf)).score(image=img, program=prog, mode="tools", n_calls=4)
        assert scored.reward is None and scored.error == f"judge_api_key_env {why}", scored.error
    assert JUDGE["auth"][n0:] == []  # nothing was asked, with any key
    monkeypatch.setenv("JUDGE_KEY_TYPO", "sk-the-judges")
    scored = RewardModel(RewardConfig(**conf)).score(image=img, program=prog, mode="tools", n_calls=4)
    assert scored.reward is not None and set(JUDGE["auth"][n0:]) == {"Bearer sk-the-judges"}
    n1 = len(JUDGE["auth"])  # no variable named: the documented chain, as before
    RewardModel(RewardConfig(**reward_config(judge_url))).score(image=img, program=prog, mode="tools", n_calls=4)
    assert set(JUDGE["auth"][n1:]) == {"Bearer sk-user-AQUARELLE"}
