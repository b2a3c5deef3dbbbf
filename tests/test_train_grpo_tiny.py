"""A tiny random model, warm-started on one demonstration, drives the real GRPOTrainer through tools mode.

The preference scorer is the one boundary we cannot reach here (HPSv3 needs a GPU): it
is the real `serve-hps` app on 127.0.0.1 with the model replaced by a function that
fails every second request, so some rollouts get no reward (None) and must be left
out of the trainer's reward, not counted as 0.
"""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path

import pytest
from serve_process import free_port

DATA = Path(__file__).parent / "data"
SPACE = "fill,circle"


@pytest.fixture(scope="module")
def flaky_hps():
    import httpx
    import uvicorn

    from aquarelle.rewards.hps_server import create_app

    calls = {"n": 0}

    def scorer(images, prompts):
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            raise RuntimeError("the GPU scorer fell over")
        return [(2.0, 0.1) for _ in images]

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(scorer), host="127.0.0.1", port=port, log_level="error"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    yield url, calls
    server.should_exit = True
    th.join(timeout=5)


@pytest.fixture(scope="module")
def warm_tiny(tmp_path_factory):
    """A tiny byte-level-BPE Llama that learned one tool-call painting with the real SFTTrainer."""
    from aquarelle.brush import Program
    from aquarelle.train.config import SFTSection, load_config
    from aquarelle.train.data import Demo
    from aquarelle.train.envglue import env_class
    from aquarelle.train.model import byte_tokenizer, tiny_model
    from aquarelle.train.sft import build_examples, run_sft

    cfg = load_config(None, {"env.action_space": SPACE})
    prog = Program.from_calls([("fill", ["#d7263d", 180]), ("circle", [300, 300, 150])])
    examples = build_examples([Demo("sun", "a red sun", "love", prog)], mode="tools", action_space=SPACE,
                              env_cls=env_class("tools", SPACE, cfg))
    plain = byte_tokenizer()
    corpus = [plain.apply_chat_template(e["messages"], tools=json.loads(e["tools"]), tokenize=False) for e in examples]
    policy = tiny_model(corpus=corpus)
    out = tmp_path_factory.mktemp("warm")
    info = run_sft(policy, examples, out, SFTSection(steps=300, learning_rate=5e-3, batch_size=1, max_length=4096, train_layers=None),
                   progress=False)
    assert info["last_loss"] < 0.1 * info["first_loss"]
    return out


@pytest.fixture
def sun_prompts(tmp_path):
    """The tiny model learned one painting for one prompt: train on that prompt."""
    f = tmp_path / "prompts.json"
    f.write_text(json.dumps({"prompts": [{"id": "sun", "subject": "sky", "prompt": "a red sun", "split": "train"},
                                         {"id": "sun2", "subject": "sky", "prompt": "a red sun", "split": "train"},
                                         {"id": "cat", "subject": "animals", "prompt": "a cat", "split": "heldout"}]}))
    return str(f)


def test_tiny_model_drives_grpo_through_tools(warm_tiny, flaky_hps, sun_prompts, tmp_path):
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import METRIC_KEYS, train
    from aquarelle.train.sample import paint

    url, calls = flaky_hps
    cfg = load_config(None, {
        "model.name": str(warm_tiny), "prompts": sun_prompts, "env.action_space": SPACE,
        "optim.max_steps": 2, "generation.num_generations": 2, "generation.prompts_per_step": 2,
        "generation.max_completion_length": 160, "generation.temperature": 0.7, "generation.max_tool_calling_iterations": 2,
        "optim.learning_rate": 1e-4, "reward.preference_backend": "hpsv3", "reward.preference_url": url,
        "reward.extra": {"preference_retries": 0}, "env.image_size": 64,
    })
    run = tmp_path / "run"
    summary = train(cfg, run)
    assert summary["steps"] == 2

    conf = json.loads((run / "config.json").read_text())
    assert conf["config"]["env"]["action_space"] == SPACE and "trl" in conf["versions"] and "torch" in conf["versions"]
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics] == [1, 2]
    assert all(k in m for m in metrics for k in METRIC_KEYS)
    assert len(rollouts) == 8 and {r["step"] for r in rollouts} == {1, 2}

    # tools were called and painted
    assert all(m["tool_calls_mean"] > 0 for m in metrics)
    painted = [r for r in rollouts if r["methods"].get("circle") and r["coverage"] and r["coverage"] > 0]
    assert painted, [r["errors"] for r in rollouts]
    assert all((run / r["image"]).is_file() for r in rollouts if r["image"])
    assert painted[0]["image"] is not None

    # rewards reached the trainer; the scorer's failures are None and left out, not zeroed
    assert calls["n"] >= 2
    nones = [r for r in rollouts if r["reward"] is None]
    scored = [r for r in rollouts if r["reward"] is not None]
    assert nones and scored
    assert all(any("hpsv3" in e for e in r["errors"]) or r["breakdown"].get("preference") is None for r in nones)
    for m in metrics:
        step_rewards = [r["reward"] for r in rollouts if r["step"] == m["step"]]
        kept = [x for x in step_rewards if x is not None]
        if kept:
            assert math.isclose(m["reward"], sum(kept) / len(kept), abs_tol=1e-4)
        assert m["rewards_none"] == len(step_rewards) - len(kept)
        assert m["env_time_share"] is not None and 0 < m["env_time_share"] < 1
    # the judge's order flips reach eval's position-bias rate (they were never written: always n/a)
    judged = [r for r in rollouts if r["breakdown"].get("judge") is not None]
    assert judged and all(r["judge_pairs"] > 0 and 0 <= r["judge_position_bias"] <= r["judge_pairs"] for r in judged)
    assert all(r["judge_pairs"] is None for r in rollouts if r["breakdown"].get("judge") is None)
    from aquarelle.eval.metrics import scorer_agreement
    from aquarelle.eval.run import load_run

    assert scorer_agreement(load_run(run).rollouts)["position_bias_rate"] is not None

    # the trained policy paints through the same path evaluation uses
    assert (run / "checkpoint" / "config.json").is_file()
    rec = paint(str(run), "a red sun", config=cfg)
    for k in ("step", "prompt", "prompt_id", "split", "mode", "group", "code", "image", "reward", "breakdown",
              "coverage", "n_calls", "errors", "methods"):
        assert k in rec
    assert rec["mode"] == "tools"


def test_resume_continues_from_the_last_checkpoint(warm_tiny, sun_prompts, tmp_path):
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    over = {"model.name": str(warm_tiny), "prompts": sun_prompts, "env.action_space": SPACE,
            "optim.max_steps": 1, "optim.save_steps": 1, "generation.num_generations": 2,
            "generation.max_completion_length": 96, "generation.max_tool_calling_iterations": 1,
            "env.image_size": 64}
    run = tmp_path / "run"
    train(load_config(None, over), run)
    with pytest.raises(ValueError, match="already holds a run"):
        train(load_config(None, over), run)
    train(load_config(None, {**over, "optim.max_steps": 2}), run, resume=True)
    steps = [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert steps == [1, 2]


@pytest.mark.parametrize("mode", ["sketch", "revise"])
def test_sketch_and_revise_modes_score_every_rollout(mode, sun_prompts, tmp_path):
    """An untrained tiny model writes no valid sketch: every rollout is the gate's 0 (its fault), never None."""
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    cfg = load_config(None, {"model.name": "tiny", "mode": mode, "prompts": sun_prompts, "optim.max_steps": 1,
                             "generation.num_generations": 2, "generation.max_completion_length": 24,
                             "generation.max_tool_calling_iterations": 1, "env.image_size": 64})
    run = tmp_path / "run"
    train(cfg, run)
    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 and all(r["mode"] == mode for r in rollouts)
    assert all(r["reward"] == 0.0 and r["breakdown"].get("gate") == 0.0 for r in rollouts)
    assert metrics[0]["step"] == 1 and metrics[0]["frac_reward_zero_std"] == 1.0
    assert json.loads((run / "config.json").read_text())["config"]["mode"] == mode


def test_resume_after_a_lost_step_records_each_step_once(sun_prompts, tmp_path):
    """A run killed after step 2 was logged but before its checkpoint resumes from step 1 and runs step 2 again:
    metrics.jsonl and rollouts.jsonl must hold step 2 once (the rerun), not twice."""
    import shutil

    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    over = {"model.name": "tiny", "mode": "sketch", "prompts": sun_prompts, "optim.max_steps": 2,
            "optim.save_steps": 1, "generation.num_generations": 2, "generation.max_completion_length": 16,
            "env.image_size": 64}
    run = tmp_path / "run"
    train(load_config(None, over), run)
    shutil.rmtree(run / "checkpoints" / "checkpoint-2")  # killed before step 2's checkpoint was written
    train(load_config(None, over), run, resume=True)
    steps = [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert steps == [1, 2]
    rollouts = [json.loads(x)["step"] for x in (run / "rollouts.jsonl").read_text().splitlines()]
    assert sorted(rollouts) == [1, 1, 2, 2]


def test_rollout_steps_and_groups_under_generation_reuse(sun_prompts, tmp_path):
    """A rollout is labelled with the optimizer step during which it was generated (the policy that painted it).

    steps_per_generation=2 trains two steps on one generation: its rollouts are step 1's, step 2 has none, and
    eval's per-step numbers use the steps that exist. gradient_accumulation_steps=2 with steps_per_generation=1
    generates twice within a step: the two batches' GRPO groups must stay apart (they shared group 0 before).
    """
    from aquarelle.eval.metrics import reward_trend
    from aquarelle.eval.run import load_run
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    def run_with(name, max_steps, extra):
        cfg = load_config(None, {"model.name": "tiny", "mode": "sketch", "prompts": sun_prompts,
                                 "optim.max_steps": max_steps, "generation.num_generations": 2,
                                 "generation.max_completion_length": 16, "env.image_size": 64,
                                 "optim.extra_grpo_args": extra})
        train(cfg, tmp_path / name)
        return [json.loads(x) for x in (tmp_path / name / "rollouts.jsonl").read_text().splitlines()]

    reused = run_with("reuse", 4, {"steps_per_generation": 2})
    assert [r["step"] for r in reused] == [1] * 4 + [3] * 4
    assert [p["step"] for p in reward_trend(load_run(tmp_path / "reuse").rollouts)["per_step"]] == [1, 3]

    twice = run_with("twice", 2, {"gradient_accumulation_steps": 2, "steps_per_generation": 1})
    groups: dict[tuple[int, int], list[str]] = {}
    for r in twice:
        groups.setdefault((r["step"], r["group"]), []).append(r["prompt_id"])
    assert sorted(groups) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert all(len(ids) == 2 and len(set(ids)) == 1 for ids in groups.values()), groups
