"""A tiny random model, warm-started on one demonstration, drives the real GRPOTrainer through tools mode.

The preference scorer is the one boundary we cannot reach here (HPSv3 needs a GPU): it
is the real `serve-hps` app on 127.0.0.1 with the model replaced by a function that
fails every second request, so some rollouts get no reward (None) and must be left
out of the trainer's reward, not counted as 0.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pytest
from serve_process import free_port, serve_in_thread

DATA = Path(__file__).parent / "data"
SPACE = "fill,circle"


@pytest.fixture(scope="module")
def flaky_hps():
    from aquarelle.rewards.hps_server import create_app

    calls = {"n": 0}

    def scorer(images, prompts):
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            raise RuntimeError("the GPU scorer fell over")
        return [(2.0, 0.1) for _ in images]

    with serve_in_thread(create_app(scorer)) as url:
        yield url, calls


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


def test_resume_continues_from_the_last_checkpoint(warm_tiny, sun_prompts, tmp_path, capfd):
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
    first = json.loads((run / "config.json").read_text())
    assert first["git_dirty"] in (True, False) and "numba" in first["versions"] and "resumes" not in first
    said: list[str] = []
    heard = logging.Handler()
    heard.emit = lambda record: said.append(record.getMessage())
    logging.getLogger("transformers.trainer").addHandler(heard)
    capfd.readouterr()
    try:
        resumed = train(load_config(None, {**over, "optim.max_steps": 2}), run, resume=True)
    finally:
        logging.getLogger("transformers.trainer").removeHandler(heard)
    # the progress bar starts at the checkpoint's step: from 0, the first step moved it by every step trained
    # before, in one step's time, and its rate and time left were wrong for the rest of the run
    bar = capfd.readouterr().err
    assert "1/2 [" in bar and "0/2 [" not in bar, bar[-2000:]
    # the tied output head is not saved, and is the loaded embedding: transformers warned it missing on every resume
    assert not [m for m in said if "missing keys" in m], said
    steps = [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert steps == [1, 2]
    # which code and command trained step 2 was recorded nowhere: config.json is the first run's
    conf = json.loads((run / "config.json").read_text())
    assert conf["started"] == first["started"] and len(conf["resumes"]) == 1
    assert conf["resumes"][0]["from"] == "checkpoint-1" and "trl" in conf["resumes"][0]["versions"]
    assert set(conf["resumes"][0]) >= {"started", "argv", "git_commit", "git_dirty", "git_diff_sha1"}
    assert resumed["resumed_from"] == "checkpoint-1"
    assert json.loads((run / "summary.json").read_text())["resumed_from"] == "checkpoint-1"
    # a finished run resumed (demo --resume after a whole demo) trained one step past optim.max_steps
    lines: list[str] = []
    summary = train(load_config(None, {**over, "optim.max_steps": 2}), run, resume=True, log=lines.append)
    assert summary["steps"] == 2 and any("nothing to resume" in m for m in lines), lines
    assert sorted(p.name for p in (run / "checkpoints").glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    assert [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()] == [1, 2]
    # a run holding more checkpoints than optim.save_total_limit lost its oldest at the next save, unsaid
    lines.clear()
    train(load_config(None, {**over, "optim.max_steps": 3, "optim.save_total_limit": 1}), run, resume=True,
          log=lines.append)
    note = next((m for m in lines if "optim.save_total_limit is 1" in m), None)
    assert note is not None and "holds 2 checkpoints (checkpoint-1 to checkpoint-2)" in note, lines
    assert sorted(p.name for p in (run / "checkpoints").glob("checkpoint-*")) == ["checkpoint-3"]


@pytest.mark.parametrize("mode", ["sketch", "revise"])
def test_sketch_and_revise_modes_score_every_rollout(mode, sun_prompts, tmp_path):
    """An untrained tiny model writes no valid sketch: every rollout is the gate's 0 (its fault), never None."""
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    cfg = load_config(None, {"model.name": "tiny", "mode": mode, "prompts": sun_prompts, "optim.max_steps": 1,
                             "generation.num_generations": 2, "generation.max_completion_length": 24,
                             "generation.max_tool_calling_iterations": 1, "env.image_size": 64})
    run = tmp_path / "run"
    lines: list[str] = []
    train(cfg, run, log=lines.append)
    # one tool turn holds the sketch and no revision: env.revisions (1) could never be reached, unsaid
    assert any("env.revisions is 1, but an episode runs at most" in m for m in lines) == (mode == "revise"), lines
    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 and all(r["mode"] == mode for r in rollouts)
    assert all(r["reward"] == 0.0 and r["breakdown"].get("gate") == 0.0 for r in rollouts)
    assert metrics[0]["step"] == 1 and metrics[0]["frac_reward_zero_std"] == 1.0
    assert json.loads((run / "config.json").read_text())["config"]["mode"] == mode


def test_a_lora_run_of_a_model_built_in_memory_loads_for_paint_and_eval(sun_prompts, tmp_path):
    """`train --model tiny --lora` saved an adapter whose base model was "None", and `paint`/`eval` asked the Hub for
    it (30 s of retries, then "couldn't connect"). It is saved merged into its base."""
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train
    from aquarelle.train.model import load_policy

    cfg = load_config(None, {"model.name": "tiny", "mode": "sketch", "model.lora": True, "prompts": sun_prompts,
                             "optim.max_steps": 1, "generation.num_generations": 2,
                             "generation.max_completion_length": 16, "env.image_size": 64})
    run = tmp_path / "run"
    train(cfg, run)
    assert not (run / "checkpoint" / "adapter_config.json").exists()
    policy = load_policy(str(run))
    assert policy.model.config.vocab_size > 0


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


def test_only_the_newest_checkpoints_are_kept(sun_prompts, tmp_path):
    """Every `save_steps` checkpoint stayed: 20 for a 1,000-step run, each the weights and the optimizer state."""
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train
    from aquarelle.train.preflight import grpo_config

    over = {"model.name": "tiny", "mode": "sketch", "prompts": sun_prompts, "optim.max_steps": 3,
            "optim.save_steps": 1, "generation.num_generations": 2, "generation.max_completion_length": 16,
            "env.image_size": 64}
    run = tmp_path / "run"
    train(load_config(None, over), run)
    assert sorted(p.name for p in (run / "checkpoints").glob("checkpoint-*")) == ["checkpoint-2", "checkpoint-3"]
    keep_all = load_config(None, over)
    keep_all.optim.save_total_limit = None  # (`save_total_limit: null` in a config file)
    assert grpo_config(keep_all, run, False).save_total_limit is None


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


def test_a_run_counts_its_optimizer_steps_not_the_steps_that_left_rollouts_or_metrics_lines(sun_prompts, tmp_path):
    """4 optimizer steps with steps_per_generation=2 leave rollouts at steps 1 and 3, and logging_steps=3 metrics lines
    at step 3 and (the last step) 4: summary.json said 1 step (its metrics lines, when step 3 had the only one),
    eval.json and the report 2 (the steps with rollouts)."""
    from aquarelle.eval import report
    from aquarelle.eval.evaluate import evaluate
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    cfg = load_config(None, {"model.name": "tiny", "mode": "sketch", "prompts": sun_prompts, "optim.max_steps": 4,
                             "generation.num_generations": 2, "generation.max_completion_length": 16,
                             "env.image_size": 64,
                             "optim.extra_grpo_args": {"steps_per_generation": 2, "logging_steps": 3}})
    run = tmp_path / "run"
    summary = train(cfg, run)
    assert sorted({json.loads(x)["step"] for x in (run / "rollouts.jsonl").read_text().splitlines()}) == [1, 3]
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics] == [3, 4]  # step 4 generated nothing: its line has no reward
    assert metrics[1]["reward"] is None and metrics[1]["rewards_none"] == 0
    assert summary["steps"] == 4 and json.loads((run / "summary.json").read_text())["steps"] == 4
    ev = evaluate(run, samples=0, progress=False)
    assert ev["steps"] == 4 and ev["rollout_steps"] == 2
    assert [p["step"] for p in ev["reward_trend"]["per_step"]] == [1, 3]  # the per-step numbers skip steps 2, 4
    assert "4 steps (2 with rollouts)" in report.build(run)


def test_the_last_step_writes_a_metrics_line_whatever_logging_steps_says(sun_prompts, tmp_path):
    """transformers logs every logging_steps-th step: at 2 of 3 steps, step 3 got a line only from the end-of-training
    log (TRL adds its pending metrics to it), without loss, grad_norm or learning_rate, and a last step that generated
    nothing (generation reuse) got none at all. The last step logs as any logged step, over the steps since the
    previous line; a resumed run adds its own last line without repeating one (step 4 is both a logging step and the
    last)."""
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    over = {"model.name": "tiny", "mode": "sketch", "prompts": sun_prompts, "optim.max_steps": 3,
            "generation.num_generations": 2, "generation.max_completion_length": 16, "env.image_size": 64,
            "optim.extra_grpo_args": {"logging_steps": 2}}
    run = tmp_path / "run"
    summary = train(load_config(None, over), run)
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    assert [m["step"] for m in lines] == [2, 3]
    last = lines[-1]
    step3 = [r["reward"] for r in rollouts if r["step"] == 3]
    assert len(step3) == 2 and last["reward"] == pytest.approx(sum(step3) / len(step3))
    assert last["gate_mean"] is not None and last["rewards_none"] == 0
    assert last["loss"] is not None and last["grad_norm"] is not None and last["learning_rate"] is not None
    assert summary["reward_mean"] == pytest.approx(sum(m["reward"] for m in lines) / 2)
    assert summary["step_time_mean"] == pytest.approx(sum(m["step_time"] for m in lines) / 2)

    train(load_config(None, {**over, "optim.max_steps": 4}), run, resume=True)
    assert [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()] == [2, 3, 4]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_process_launch_writes_one_run_directory(tmp_path):
    """`accelerate launch --num_processes 2` of a real tiny run on CPU (gloo): every process ran train(), so every
    one preflighted, wrote config.json and warm-started into the shared cache, its rollouts were numbered from 0
    (two processes' images under one name, both processes' prompts in group 0) and each wrote its own metrics line.
    The run directory must be the one a single-process run writes, over both processes' rollouts.

    `--multi_gpu` on a CPU machine: accelerate's `--cpu --num_processes 2` starts ONE process (its simple launcher
    needs mpirun for more); `--multi_gpu` goes through torchrun, and the run's use_cpu makes it gloo."""
    import os
    import subprocess
    import sys

    import aquarelle
    from aquarelle.train.model import tiny_model

    model = tmp_path / "model"  # a local model that cannot call tools yet: train() warm-starts it first
    pol = tiny_model()
    pol.model.save_pretrained(model)
    pol.tokenizer.save_pretrained(model)
    # its chat template mentions tools (the byte tokenizer's), which a model is trusted on: aquarelle.json says no
    (model / "aquarelle.json").write_text(json.dumps({"can_call_tools": False}))
    cfg = tmp_path / "c.json"
    procs, per_device, steps, G = 2, 2, 2, 2
    cfg.write_text(json.dumps({
        "mode": "tools", "model": {"name": str(model)}, "prompts": str(DATA / "train_prompts.json"),
        "generation": {"num_generations": G, "prompts_per_step": per_device // G, "max_completion_length": 24,
                       "max_tool_calling_iterations": 1},
        "optim": {"max_steps": steps}, "env": {"image_size": 64}, "sft": {"steps": 1, "max_length": 8192}}))
    run = tmp_path / "run"
    src = str(Path(aquarelle.__file__).resolve().parents[1])  # the code under test, in the launched processes too
    env = dict(os.environ, OMP_NUM_THREADS="1", AQUARELLE_CACHE=str(tmp_path / "cache"), CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(k, None)
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", str(procs),
              "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
              "--main_process_port", str(free_port())]
    r = subprocess.run([*launch, "-m", "aquarelle.cli", "train", "--config", str(cfg), "--out", str(run),
                        "--demos", str(DATA / "train_demos")], capture_output=True, text=True, env=env, timeout=540)
    assert r.returncode == 0, r.stderr[-4000:]
    assert [x for x in r.stdout.splitlines() if x.startswith('{"run"')] == [r.stdout.strip().splitlines()[-1]]

    # the warm start was trained once (by the main process) and loaded from the cache by the other
    assert r.stderr.count("SFT steps ->") == 1 and r.stderr.count("[rank 1] warm start: using cached") == 1, r.stderr
    warm = [p for p in (tmp_path / "cache" / "warm").iterdir() if p.is_dir()]
    assert len(warm) == 1 and json.loads((run / "config.json").read_text())["warm_start"] == str(warm[0])

    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    for step in range(1, steps + 1):
        rs = [r for r in rollouts if r["step"] == step]
        assert len(rs) == procs * per_device, [(r["step"], r["group"]) for r in rollouts]
        # TRL's grouping: the processes' shares gathered in rank order, global index // num_generations
        assert [r["group"] for r in rs] == [i // G for i in range(procs * per_device)]
        for g in {r["group"] for r in rs}:  # one group is one prompt, G times
            ids = [r["prompt_id"] for r in rs if r["group"] == g]
            assert len(ids) == G and len(set(ids)) == 1
        assert len({r["prompt_id"] for r in rs}) == procs * per_device // G  # the other process's prompts are here
    images = [r["image"] for r in rollouts]
    assert None not in images and len(set(images)) == len(images) and all((run / i).is_file() for i in images)
    assert sorted(p.name for p in (run / "images").iterdir()) == sorted(Path(i).name for i in images)

    assert [m["step"] for m in metrics] == list(range(1, steps + 1))  # one line per step, by the main process
    for m in metrics:
        rs = [r for r in rollouts if r["step"] == m["step"]]
        assert m["processes"] == procs and m["rollouts"] == len(rs) == procs * per_device
        assert m["rewards_none"] == sum(r["reward"] is None for r in rs)
        gates = [r["breakdown"]["gate"] for r in rs if r["breakdown"].get("gate") is not None]
        assert m["gate_mean"] == pytest.approx(sum(gates) / len(gates))
    assert json.loads((run / "summary.json").read_text())["steps"] == steps

    # eval reads it as it reads a single-process run
    ev = subprocess.run([sys.executable, "-m", "aquarelle.cli", "eval", str(run), "--samples", "0"],
                        capture_output=True, text=True, env=env, timeout=180)
    assert ev.returncode == 0, ev.stderr[-2000:]
    report = json.loads((run / "eval.json").read_text())
    assert report["steps"] == steps and report["rollouts"] == steps * procs * per_device
    assert report["diversity"]["n_images"] == len(images) and report["diversity"]["missing_images"] == 0


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interrupted_run_says_where_it_stands(sun_prompts, tmp_path, sig):
    """Ctrl-C exited 130 without a word (click returns 130 under standalone_mode=False) and SIGTERM (timeout, a
    scheduler, docker stop) killed the run silently: both now name the last checkpoint and the resume command."""
    import os
    import signal
    import subprocess
    import sys
    import time

    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"model: {{name: tiny}}\nmode: sketch\nprompts: {sun_prompts}\n"
                   "optim: {max_steps: 200, save_steps: 1}\n"
                   "generation: {num_generations: 2, max_completion_length: 16}\nenv: {image_size: 64}\n")
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "aquarelle.cli", "train", "--config", str(cfg), "--out", str(run)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    deadline = time.monotonic() + 240
    while not list((run / "checkpoints").glob("checkpoint-*")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=120)
    # 128 + the signal, as a scheduler or `timeout` reads a process it stopped (SIGTERM exited 130 like Ctrl-C)
    assert proc.returncode == 128 + getattr(signal, sig), err[-2000:]
    line = next((x for x in err.splitlines() if x.startswith("interrupted during step")), None)
    assert line is not None, err[-2000:]
    assert "the last checkpoint is " + str(run / "checkpoints" / "checkpoint-") in line
    assert f"aquarelle train --resume --out {run}" in line
    assert err.rstrip().endswith("interrupted" if sig == "SIGINT" else "terminated")


def test_a_model_whose_chat_template_knows_tools_is_not_warm_started(warm_tiny, tmp_path):
    """`train` asked `can_call_tools(model_name)` without a tokenizer: every Hub instruct model (and a local model
    without our aquarelle.json) read False, and a GPU run of Qwen was first fine-tuned on 17 demonstrations, in
    float32, its top 6 layers, then trained from the cache. The chat template is read now."""
    import shutil

    from aquarelle.train.model import can_call_tools

    plain = tmp_path / "hub-like"
    shutil.copytree(warm_tiny, plain)
    for marker in plain.rglob("aquarelle.json"):
        marker.unlink()
    assert can_call_tools(str(plain)) is True  # its template renders the tools offered
    assert can_call_tools("smollm2") is False and can_call_tools("tiny") is False


def test_a_trainer_that_cannot_be_built_leaves_no_run_behind(sun_prompts, tmp_path):
    """PEFT finding no module to adapt (or a reference model that would not load) failed after the run directory
    had its config.json: the same --out was then refused as a run "with no checkpoint to resume from"."""
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    over = {"model.name": "tiny", "mode": "sketch", "prompts": sun_prompts, "optim.max_steps": 1,
            "generation.num_generations": 2, "generation.max_completion_length": 16, "env.image_size": 64,
            "model.lora": True, "model.lora_target_modules": "no_such_module"}
    run = tmp_path / "out" / "run"
    with pytest.raises(ValueError, match="no_such_module"):
        train(load_config(None, over), run, log=lambda m: None)
    assert not run.exists() or not any(run.iterdir()), list(run.iterdir())
    summary = train(load_config(None, {**over, "model.lora_target_modules": "all-linear"}), run, log=lambda m: None)
    assert summary["steps"] == 1


def test_the_plain_trl_recipe_trains_on_the_painting_tools(warm_tiny, sun_prompts, tmp_path):
    """examples/grpo_tools.py, the recipe without `aquarelle train` around it, runs as a user would run it: the
    tools reach the model, the episodes are scored, and the policy it saves paints through `aquarelle paint`."""
    import os
    import subprocess
    import sys

    out = tmp_path / "recipe"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run([sys.executable, str(Path(__file__).parents[1] / "examples" / "grpo_tools.py"),
                        "--model", str(warm_tiny), "--out", str(out), "--action-space", SPACE,
                        "--prompts", sun_prompts, "--max-steps", "1", "--num-generations", "2",
                        "--max-completion-length", "96", "--tool-turns", "1"],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    import ast

    logged = [ast.literal_eval(line) for line in r.stdout.splitlines() if line.startswith("{") and "'reward'" in line]
    assert logged, r.stdout[-3000:]
    # the warm-started tiny model calls the tools and paints the red sun it learned: scored above the gate's 0
    assert float(logged[0]["tools/call_frequency"]) >= 1 and float(logged[0]["reward"]) > 0.1, logged[0]
    assert (out / "config.json").is_file() and f"saved the trained policy to {out}" in r.stdout
    from aquarelle.train.config import load_config
    from aquarelle.train.sample import paint

    rec = paint(str(out), "a red sun", config=load_config(None, {"env.action_space": SPACE}))
    assert rec["mode"] == "tools" and rec["n_calls"] >= 1, rec


def test_the_plain_trl_sketch_recipe_scores_each_sketch_and_trains(sun_prompts, tmp_path):
    """examples/grpo_sketch.py: its reward runs a completion's sketch through the sandbox, the painter and the
    scorers (a pool painting scores above the gate, prose the gate's 0, never None), and the script trains a
    model saved to disk as a user would run it."""
    import importlib.util
    import os
    import subprocess
    import sys

    from aquarelle.train.model import tiny_model

    script = Path(__file__).parents[1] / "examples" / "grpo_sketch.py"
    spec = importlib.util.spec_from_file_location("grpo_sketch", script)
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    reward = recipe.make_reward("judge-led", [])
    # a love painting in the published ten methods (the recipe's action space, hf10)
    sketch = (Path(__file__).parents[1] / "pool" / "sketches" / "flowers_poppies.js").read_text()
    got = reward(completions=[[{"role": "assistant", "content": f"Here it is.\n```js\n{sketch}\n```"}],
                              "I would paint three poppies."],
                 painting_prompt=["three red poppies on tall stems"] * 2, seed=[7, 7])
    assert got[0] is not None and got[0] > 0.3 and got[1] == 0.0, got

    model = tmp_path / "tiny"
    pol = tiny_model()
    pol.model.save_pretrained(model)
    pol.tokenizer.save_pretrained(model)
    out = tmp_path / "recipe"
    r = subprocess.run([sys.executable, str(script), "--model", str(model), "--out", str(out), "--prompts",
                        sun_prompts, "--max-steps", "1", "--num-generations", "2", "--max-completion-length", "24"],
                       capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    import ast

    logged = [ast.literal_eval(line) for line in r.stdout.splitlines() if line.startswith("{") and "'reward'" in line]
    # a random model writes no sketch: every rollout is the gate's 0, scored (a None would be left out as nan)
    assert logged and float(logged[0]["reward"]) == 0.0, r.stdout[-3000:]
    assert (out / "config.json").is_file()
