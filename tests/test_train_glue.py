"""The GRPO glue without a model: the reward function, the metrics line and paint's episode loop (fast)."""

from __future__ import annotations

import json
import socket

import pytest
from transformers import TrainerState

SPACE = "fill,circle"


def _dead_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


def test_a_rollout_whose_env_server_went_away_is_none_and_recorded(tmp_path):
    """finish_episode raised (the server stayed down): training went down with it instead of a None reward."""
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, env_class
    from aquarelle.train.grpo import Recorder, make_reward_func

    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64})
    recorder, timer = Recorder(tmp_path, "tools", 64), EnvTimer()
    reward_fn = make_reward_func(cfg, recorder, timer, num_generations=2)
    local = env_class("tools", SPACE, cfg)()
    local.reset(prompt="a red sun", seed=3)
    local.circle(x=300, y=300, r=150)
    dead = env_class("tools", SPACE, cfg.model_copy(update={"env": cfg.env.model_copy(update={"urls": [_dead_url()]})}))()
    dead._backend.reconnect_s, dead._backend.retries = 0.1, 1
    dead._backend._reset_kw, dead._started, dead._done = {"prompt": "a red sun"}, True, False  # mid-episode
    state = TrainerState()
    rewards = reward_fn(prompts=[[]] * 2, completions=[[], []], environments=[local, dead], trainer_state=state,
                        painting_prompt=["a red sun"] * 2)
    assert rewards[0] is not None and rewards[1] is None
    lines = [json.loads(x) for x in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in lines] == rewards and any("environment" in e for e in lines[1]["errors"])
    assert recorder.take().n_none == 1


def test_a_server_that_stays_down_is_waited_out_once_and_said(capsys):
    """Each rollout of a step waited the reconnect window twice (finish, then its state: 2 x 180 s), one rollout
    after another, without a line on stderr: a step of 8 rollouts spent 48 minutes before recording its Nones."""
    import time

    from aquarelle.train.envglue import finish_episode
    from aquarelle.train.tool_env import ToolError, make_tool_env

    url = _dead_url()
    cls = make_tool_env(env_urls=[url], reconnect_s=3.0)
    envs = [cls(), cls()]
    for env in envs:  # mid-episode when the server went away
        env._backend._reset_kw, env._started, env._done = {"prompt": "a red sun"}, True, False
    took = []
    for env in envs:
        t0 = time.monotonic()
        out = finish_episode(env)
        took.append(time.monotonic() - t0)
        assert out.reward is None and out.error.startswith("environment failed: environment server unreachable")
    assert took[0] < 6.5, took  # one window (3 s and its backoff), not two
    assert took[1] < 3.0, took  # the next episode does not wait the window again
    err = capsys.readouterr().err
    assert err.count(f"environment server {url} unreachable") == 1, err
    assert "retrying for up to 3 s" in err
    # but a reset waits the whole window again: TRL calls it unguarded, so giving up early stopped the training
    fresh = cls()
    t0 = time.monotonic()
    with pytest.raises(ToolError, match="unreachable"):
        fresh.reset(prompt="a red sun")
    assert time.monotonic() - t0 >= 2.9


def test_paint_executes_as_many_tool_rounds_as_training(monkeypatch):
    """TRL runs max_tool_calling_iterations rounds of tools; the calls of the turn after the last round are never
    run. paint ran them too, so eval painted more than training ever could."""
    from aquarelle.train import sample
    from aquarelle.train.config import load_config
    from aquarelle.train.model import Policy, byte_tokenizer

    turns = []
    monkeypatch.setattr(sample, "_generate", lambda pol, messages, tools, left, t, seed, top_p: (
        turns.append(len(messages)) or "x", [1, 2, 3], [4]))
    monkeypatch.setattr(sample, "_parse", lambda pol, ids, prefix, tools: {"content": "", "tool_calls": [
        {"type": "function", "function": {"name": "circle", "arguments": {"x": 300, "y": 300, "r": 50}}}]})
    pol = Policy(model=None, tokenizer=byte_tokenizer(), name="fake", path=None)
    for it in (1, 2):
        turns.clear()
        cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64,
                                 "generation.max_tool_calling_iterations": it, "reward.weights": {"gate": 1.0}})
        rec = sample.paint(pol, "a red sun", "tools", config=cfg)
        assert len(turns) == it + 1  # the model's turns, as in TRL: the first and one after each round of tools
        assert rec["n_calls"] == it, rec["methods"]


def test_paint_takes_the_mode_its_config_file_names(monkeypatch, tmp_path):
    """docs/config.md: `paint` reads the same file as `train`; a file saying ``mode: sketch`` painted with tools. The
    mode named in the call still wins, and a file that names none leaves the policy's own (tools here)."""
    from aquarelle.train import sample
    from aquarelle.train.config import load_config
    from aquarelle.train.model import Policy, byte_tokenizer

    sketch = ("function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }\nfunction draw() {\n"
              "  translate(-width / 2, -height / 2);\n  brush.fill('#d7263d', 150);\n  brush.circle(300, 300, 90);\n}\n")
    monkeypatch.setattr(sample, "_generate", lambda *a, **k: (f"```js\n{sketch}```", [1], [2]))
    monkeypatch.setattr(sample, "_parse", lambda *a, **k: {"content": "", "tool_calls": []})
    pol = Policy(model=None, tokenizer=byte_tokenizer(), name="fake", path=None)
    path = tmp_path / "c.yaml"
    path.write_text("mode: sketch\nenv: {image_size: 64}\nreward: {weights: {gate: 1.0}}\n")
    assert sample.paint(pol, "a red sun", config=load_config(path))["mode"] == "sketch"
    assert sample.paint(pol, "a red sun", "tools", config=load_config(path))["mode"] == "tools"
    path.write_text("env: {image_size: 64}\nreward: {weights: {gate: 1.0}}\n")
    assert sample.paint(pol, "a red sun", config=load_config(path))["mode"] == "tools"


def test_every_env_server_tried_is_named_when_none_answers():
    """The reconnect error named only the last server tried (in its connection error): with two down, the first
    went unsaid."""
    from aquarelle.train.tool_env import ToolError, _RemoteBackend

    urls = [_dead_url(), _dead_url()]
    backend = _RemoteBackend(urls, retries=2, reconnect_s=0.0)
    with pytest.raises(ToolError) as err:
        backend.reset(prompt="a red sun")
    assert str(err.value).startswith(f"environment servers unreachable after 2 tries (tried {', '.join(sorted(urls))})")


def test_a_tool_env_class_refuses_an_unreachable_url_at_once_and_waits_as_long_as_asked():
    """``make_tool_env(env_urls=["ftp://x"])`` was retried 40 times over 3 minutes as ``ws://ftp://x/ws``; a down
    server could not be given up on sooner than the built-in 180 s. The URL is checked when the class is made,
    and ``reconnect_s`` says how long to keep trying (the episode then fails with its reason, reward None)."""
    import time

    from aquarelle.train.tool_env import ToolError, make_tool_env

    for bad in ("ftp://x", "http://h:1/?key=1"):
        with pytest.raises(ValueError, match=r"^env_urls: '"):
            make_tool_env(env_urls=[bad])
    with pytest.raises(ValueError, match="reconnect_s must be a number of seconds >= 0"):
        make_tool_env(env_urls=[_dead_url()], reconnect_s=float("nan"))
    with pytest.raises(ValueError, match="obs_chars must be a whole number of characters > 0, got -1"):
        make_tool_env(obs_chars=-1)
    env = make_tool_env(env_urls=[_dead_url()], reconnect_s=1.0)()
    t0 = time.monotonic()
    with pytest.raises(ToolError, match="environment server unreachable after"):
        env.reset(prompt="a red sun")
    assert time.monotonic() - t0 < 30  # not the 180 s default


def test_tool_calls_mean_counts_the_calls_that_reached_the_environment(tmp_path):
    """At TRL's iteration limit the last assistant turn's calls are never run (TRL's tools/call_frequency leaves
    them out); tool_calls_mean counted them."""
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, env_class
    from aquarelle.train.grpo import Recorder, _metrics_callback, make_reward_func

    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64, "reward.weights": {"gate": 1.0}})
    recorder, timer = Recorder(tmp_path, "tools", 64), EnvTimer()
    reward_fn = make_reward_func(cfg, recorder, timer, num_generations=2)
    callback = _metrics_callback(tmp_path, recorder, timer)

    def call(name, **args):
        return {"type": "function", "function": {"name": name, "arguments": args}}

    envs, completions = [], []
    for _ in range(2):
        env = env_class("tools", SPACE, cfg)()
        env.reset(prompt="a red sun", seed=3)
        r1, r2 = env.fill(color="red"), env.circle(x=300, y=300, r=150)
        envs.append(env)
        completions.append([{"role": "assistant", "content": "", "tool_calls": [call("fill", color="red"),
                                                                              call("circle", x=300, y=300, r=150)]},
                            {"role": "tool", "name": "fill", "content": r1}, {"role": "tool", "name": "circle", "content": r2},
                            {"role": "assistant", "content": "", "tool_calls": [call("finish")]}])  # never run
    state = TrainerState()
    reward_fn(prompts=[[]] * 2, completions=completions, environments=envs, trainer_state=state,
              painting_prompt=["a red sun"] * 2)
    state.global_step = 1
    callback.on_step_begin(None, state, None)
    callback.on_step_end(None, state, None)
    callback.on_log(None, state, None, logs={"loss": 0.0})
    line = json.loads((tmp_path / "metrics.jsonl").read_text())
    assert line["tool_calls_mean"] == 2.0


def test_paint_scores_the_painting_against_the_prompt_training_uses(monkeypatch):
    """Training's rows carry the subject (the bare prompt) that the judge and the preference scorer read; paint's
    row did not, so its episodes were scored against the whole user message ('Paint a watercolour: ...')."""
    from aquarelle.train import sample
    from aquarelle.train.config import load_config
    from aquarelle.train.data import PromptRow, prompt_dataset
    from aquarelle.train.envglue import env_class, finish_episode
    from aquarelle.train.model import SYSTEMS, Policy, byte_tokenizer

    seen = []
    monkeypatch.setattr(sample, "_generate", lambda *a: ("x", [1], [2]))
    monkeypatch.setattr(sample, "_parse", lambda *a: {"content": "done"})
    monkeypatch.setattr(sample, "finish_episode", lambda env: seen.append(env.state.prompt) or finish_episode(env))
    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64, "reward.weights": {"gate": 1.0}})
    pol = Policy(model=None, tokenizer=byte_tokenizer(), name="fake", path=None)
    for mode in ("tools", "revise"):
        sample.paint(pol, "a red sun", mode, config=cfg)
        row = dict(prompt_dataset([PromptRow("sun", "a red sun")], mode=mode, system=SYSTEMS[mode], action_space=SPACE,
                                  preset="judge-led", seed=0, max_steps=16, revisions=1)[0])
        env = env_class(mode, SPACE, cfg)()
        env.reset(**row)
        assert seen[-1] == env.state.prompt == "a red sun"


def _paint_a_sun_as_training_does(cfg):
    """A tools episode reset from a training dataset row (as GRPO resets it), a red circle, then its outcome."""
    from aquarelle.train.data import PromptRow, prompt_dataset
    from aquarelle.train.envglue import env_class, finish_episode
    from aquarelle.train.model import SYSTEMS

    row = dict(prompt_dataset([PromptRow("sun", "a red sun")], mode="tools", system=SYSTEMS["tools"], action_space=SPACE,
                              preset=cfg.reward.preset, seed=0, max_steps=16, revisions=1)[0])
    env = env_class("tools", SPACE, cfg)()
    env.reset(**row)
    env.fill(color="red")
    env.circle(x=300, y=300, r=150)
    return env, finish_episode(env)


def test_custom_reward_weights_reach_the_tool_env():
    """reward.weights 'beats preset' (docs/config.md), but only sketch mode passed it on: tools and revise episodes
    (training and paint) were scored with the preset's weights."""
    from aquarelle.train.config import load_config

    w = {"gate": 1.0, "length": 0.0, "judge": 0.0, "preference": 0.0}
    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64, "reward.weights": w})
    env, out = _paint_a_sun_as_training_does(cfg)
    assert env.state.weights == w and out.breakdown["gate"] == 1.0 and out.reward == 1.0


def test_the_warm_start_cache_is_shared_by_in_process_and_server_envs_but_not_other_tool_text(monkeypatch):
    import aquarelle.train.sft as sft
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import env_class
    from aquarelle.train.sft import warm_start_dir

    def where(**over):
        cfg = load_config(None, over)
        return warm_start_dir("smollm2", "tools", "hf10", cfg.sft, 640, env_class("tools", "hf10", cfg))

    local = where()
    assert where(**{"env.urls": ["http://127.0.0.1:8000"]}) == local  # 20 CPU minutes not spent again
    cfg = load_config(None)  # nor for how long a dropped server is retried (adding it retrained the demo's)
    assert warm_start_dir("smollm2", "tools", "hf10", cfg.sft, 640, env_class("tools", "hf10", cfg, reconnect_s=5.0)) \
        == local
    assert where(**{"env.observation_chars": 60}) != local  # the observations it learns from differ
    cfg = load_config(None)
    assert warm_start_dir("smollm2", "tools", "hf10", cfg.sft, 640, env_class("tools", "hf10", cfg), turns=2) != \
        warm_start_dir("smollm2", "tools", "hf10", cfg.sft, 640, env_class("tools", "hf10", cfg), turns=3)
    monkeypatch.setattr(sft, "PROGRAM_VERSION", sft.PROGRAM_VERSION + 1)
    assert where() != local  # the pool's sketches make other programs, so other transcripts


def test_the_warm_start_cache_is_one_per_set_of_demonstrations(tmp_path, monkeypatch):
    """The key named the SFT settings but not what the warm start learns from: another pool, other ``sft.tiers``,
    ``--demos`` or ``sft.max_length`` found the repository pool's warm start cached and started GRPO from it."""
    import shutil
    from pathlib import Path

    from aquarelle.train.config import load_config
    from aquarelle.train.sft import warm_start_dir

    def where(demos=None, **over):
        cfg = load_config(None, over)
        return warm_start_dir("smollm2", "sketch", "hf10", cfg.sft, 640, None, demos_source=demos)

    base = where()
    assert where() == base
    assert where(**{"sft.tiers": ["love"]}) != base
    assert where(**{"sft.max_length": 4096}) != base
    assert where(demos="tests/data/train_demos") != base
    pool = Path(__file__).resolve().parents[1] / "pool"
    mine = tmp_path / "pool"
    shutil.copytree(pool, mine, ignore=shutil.ignore_patterns("images"))
    monkeypatch.setenv("AQUARELLE_POOL", str(mine))
    assert where() == base  # the same paintings in another folder: the same warm start
    entry = json.loads((mine / "pool.json").read_text())["paintings"][0]
    sketch = mine / "sketches" / f"{entry['id']}.js"
    sketch.write_text(sketch.read_text() + "\n// edited\n")
    assert where() != base


def test_a_tools_demonstration_paints_in_as_many_turns_as_a_rollout_runs():
    """GRPO runs the calls of ``generation.max_tool_calling_iterations`` turns (2) and no more. A warm start taught
    one shape per turn painted at most two shapes and wrote the rest in a third turn that never ran (14 of the
    demo's 40 calls)."""
    from aquarelle.brush import Program
    from aquarelle.train.config import load_config
    from aquarelle.train.data import Demo
    from aquarelle.train.envglue import env_class
    from aquarelle.train.sft import build_examples

    cfg = load_config(None, {"env.action_space": "hf10"})
    calls = [("fill", ["#d7263d", 180]), ("circle", [150, 150, 60]), ("circle", [450, 150, 60]),
             ("fill", ["#2a9d8f", 150]), ("beginShape", [0]), ("vertex", [100, 350]), ("vertex", [500, 350]),
             ("vertex", [300, 500]), ("endShape", []), ("circle", [300, 300, 40])]
    demo = Demo("four", "four shapes", "love", Program.from_calls(calls))

    def turns(**kw) -> list[list[str]]:
        [ex] = build_examples([demo], mode="tools", action_space="hf10", env_cls=env_class("tools", "hf10", cfg), **kw)
        return [[c["function"]["name"] for c in m["tool_calls"]] for m in ex["messages"]
                if m["role"] == "assistant" and m.get("tool_calls") and m["tool_calls"][0]["function"]["name"] != "finish"]

    assert turns() == [["fill", "circle"], ["circle"], ["fill", "shape"], ["circle"]]  # one shape a turn
    assert turns(turns=2) == [["fill", "circle", "circle"], ["fill", "shape", "circle"]]
    assert turns(turns=1) == [["fill", "circle", "circle", "fill", "shape", "circle"]]
    assert turns(turns=9) == turns()


def test_partial_reward_weights_override_the_configured_preset():
    """reward.weights {length: 0.1} with preset hps-only is .05/.1/0/.9 (docs/config.md), but the glue dropped the
    preset and the environment filled the other terms from judge-led (judge .60)."""
    from aquarelle.rewards.config import resolve_weights
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, SketchScorer

    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64, "reward.preset": "hps-only",
                             "reward.weights": {"length": 0.1}})
    want = resolve_weights("hps-only", {"length": 0.1}).as_dict()
    assert want["judge"] == 0.0
    env, out = _paint_a_sun_as_training_does(cfg)
    assert env.state.weights == want and out.breakdown["judge"] is None  # hps-only: judge weight 0
    sketch = ("function setup() { createCanvas(600, 600, WEBGL); }\n"
              "function draw() { translate(-width / 2, -height / 2); brush.fill('red', 120);\n"
              "  brush.circle(300, 300, 150); noLoop(); }\n")
    out = SketchScorer(cfg, EnvTimer()).score(sketch, prompt="a red sun", seed=0, preset=cfg.reward.preset,
                                              weights=cfg.reward.weights)
    assert out.breakdown["gate"] == 1.0 and out.breakdown["judge"] is None  # hps-only: judge weight 0


def test_two_generations_in_one_optimizer_step_keep_their_groups_and_images_apart(tmp_path):
    """With steps_per_generation * num_iterations below gradient_accumulation_steps TRL calls the reward function
    more than once per optimizer step; each call numbered its groups and images from 0, so two GRPO groups shared
    one (step, group) and the second call's paintings overwrote the first's files."""
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, env_class
    from aquarelle.train.grpo import Recorder, make_reward_func

    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64, "reward.weights": {"gate": 1.0}})
    recorder = Recorder(tmp_path, "tools", 64)
    reward_fn = make_reward_func(cfg, recorder, EnvTimer(), num_generations=2)
    state = TrainerState()  # global_step stays 0: both calls fall in optimizer step 1
    for prompt, colour in (("a red sun", "#d7263d"), ("a blue moon", "#1b4f9c")):
        envs = []
        for _ in range(2):
            env = env_class("tools", SPACE, cfg)()
            env.reset(prompt=prompt, seed=3)
            env.fill(color=colour)
            env.circle(x=300, y=300, r=150)
            envs.append(env)
        reward_fn(prompts=[[]] * 2, completions=[[], []], environments=envs, trainer_state=state,
                  painting_prompt=[prompt] * 2)
    lines = [json.loads(x) for x in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert [(r["step"], r["group"], r["prompt"]) for r in lines] == [
        (1, 0, "a red sun"), (1, 0, "a red sun"), (1, 1, "a blue moon"), (1, 1, "a blue moon")]
    images = [r["image"] for r in lines]
    assert None not in images and len(set(images)) == 4
    assert (tmp_path / images[0]).read_bytes() != (tmp_path / images[2]).read_bytes()  # the red sun is still there


SUN_SKETCH = """async function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  brush.fill("#d7263d", 180);
  brush.circle(300, 300, 150);
}"""


def test_revise_warm_start_submits_the_sketch_through_the_revise_tools():
    """Revise warm-started on brush-tool transcripts: the policy answered every revise episode with fill(...),
    'unknown tool', reward 0 for the whole group. Its demonstrations now use the revise tools, answered for real."""
    from aquarelle.train.config import load_config
    from aquarelle.train.data import Demo
    from aquarelle.train.envglue import env_class
    from aquarelle.train.sft import build_examples

    cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64})
    cls = env_class("revise", SPACE, cfg)
    [ex] = build_examples([Demo("sun", "a red sun", "love", sketch=SUN_SKETCH)], mode="revise", action_space=SPACE,
                          env_cls=cls)
    offered = {t["function"]["name"] if "function" in t else t["name"] for t in json.loads(ex["tools"])}
    assert offered == {"submit_sketch", "finish"}
    calls = [c["function"] for m in ex["messages"] for c in m.get("tool_calls") or []]
    assert [c["name"] for c in calls] == ["submit_sketch", "finish"]
    assert calls[0]["arguments"] == {"code": SUN_SKETCH}
    answer = next(m["content"] for m in ex["messages"] if m["role"] == "tool")
    # the environment's real result, not an error: the score and what may come next, then the whole critique
    assert answer.startswith("Score ") and "Coverage" in answer and "Critique: " in answer and "Preference" in answer
    assert "revise" in ex["messages"][1]["content"] or "revise" in ex["messages"][0]["content"]


def test_train_warm_starts_revise_on_revise_transcripts(monkeypatch, tmp_path):
    """GRPO in revise mode asked for a tools-mode warm start (brush tools revise does not offer)."""
    import pytest

    import aquarelle.train.sft as sft
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import public_tools
    from aquarelle.train.grpo import train

    asked = {}

    def record(model, *, mode, env_cls, **kw):
        asked.update(mode=mode, tools=set(public_tools(env_cls)) if env_cls else None)
        raise RuntimeError("stop here")

    monkeypatch.setattr(sft, "ensure_warm_start", record)
    cfg = load_config(None, {"mode": "revise", "env.action_space": SPACE, "env.image_size": 64})
    with pytest.raises(RuntimeError, match="stop here"):
        train(cfg, tmp_path / "run", log=lambda m: None)
    assert asked == {"mode": "revise", "tools": {"submit_sketch", "finish"}}


def test_a_single_process_warm_start_holds_its_cache_entrys_lock(monkeypatch, tmp_path):
    """Only multi-process launches took the warm start's lock: two single-process runs started at once (a sweep,
    two terminals) both trained the missing entry into one DEST.tmp and could collide. Now the only process takes
    it too, and a run that finds it held says it waits."""
    import threading

    import pytest
    from filelock import FileLock, Timeout

    import aquarelle.train.sft as sft
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))
    held = {}

    def record(model, *, mode, action_space, cfg, env_cls, budget_tokens, **kw):
        path = sft.warm_start_lock(model, mode=mode, action_space=action_space, cfg=cfg, env_cls=env_cls,
                                   budget_tokens=budget_tokens).lock_file
        held["path"] = path

        def probe():  # another process's view: a second open file description of the lock file
            try:
                FileLock(path, is_singleton=False).acquire(timeout=0)
                held["held"] = False
            except Timeout:
                held["held"] = True

        t = threading.Thread(target=probe)
        t.start()
        t.join()
        raise RuntimeError("stop here")

    monkeypatch.setattr(sft, "ensure_warm_start", record)
    cfg = load_config(None, {"mode": "revise", "env.action_space": SPACE, "env.image_size": 64})
    with pytest.raises(RuntimeError, match="stop here"):
        train(cfg, tmp_path / "run", log=lambda m: None)
    assert held["held"] is True
    # another run holding it: this one says so, then waits (here: until the other lets go)
    taken = threading.Event()

    def hold_a_while():  # in a thread of its own, as filelock refuses a second instance in one thread
        with FileLock(held["path"], is_singleton=False):
            taken.set()
            threading.Event().wait(1.0)

    threading.Thread(target=hold_a_while).start()
    taken.wait()
    lines: list[str] = []
    with pytest.raises(RuntimeError, match="stop here"):
        train(cfg, tmp_path / "run2", log=lines.append)
    assert any("another run is making this warm start" in m for m in lines), lines


def test_whole_sketch_demonstrations_longer_than_a_rollout_are_left_out():
    """A sketch cannot be cut to fit: 12 of the 17 default demonstrations (16 of 17 in revise mode) were longer
    than the 640-token rollout, so the warm start taught code that GRPO's completions end half way through."""
    import pytest

    from aquarelle.train.data import DataError, Demo
    from aquarelle.train.model import byte_tokenizer
    from aquarelle.train.sft import build_examples

    tok = byte_tokenizer()
    long = SUN_SKETCH.replace("brush.circle(300, 300, 150);", "brush.circle(300, 300, 150);\n" * 40)
    demos = [Demo("short", "a red sun", "love", sketch=SUN_SKETCH), Demo("long", "a red sun", "love", sketch=long)]
    need = len(tok("```js\n" + SUN_SKETCH + "\n```", add_special_tokens=False)["input_ids"]) + 12
    kept = build_examples(demos, mode="sketch", action_space=SPACE, budget_tokens=need + 5, tokenizer=tok)
    assert [SUN_SKETCH in e["messages"][-1]["content"] for e in kept] == [True]
    assert len(build_examples(demos, mode="sketch", action_space=SPACE, budget_tokens=10 * need, tokenizer=tok)) == 2
    with pytest.raises(DataError, match=r"generation.max_completion_length=20 tokens \(the shortest needs"):
        build_examples(demos, mode="sketch", action_space=SPACE, budget_tokens=20, tokenizer=tok)


def test_paint_samples_with_the_top_p_training_samples_with():
    """paint (and so eval, which passes the run's config) sampled at top_p 1.0 whatever generation.top_p training
    used: another distribution than the one training optimised."""
    from aquarelle.train import sample
    from aquarelle.train.config import load_config
    from aquarelle.train.model import tiny_model

    pol = tiny_model()
    seen = []
    real = pol.model.generate
    pol.model.generate = lambda *a, **kw: seen.append(kw["top_p"]) or real(*a, **kw)
    for mode in ("sketch", "tools"):
        cfg = load_config(None, {"env.action_space": SPACE, "env.image_size": 64, "generation.top_p": 0.5,
                                 "generation.max_completion_length": 16, "reward.weights": {"gate": 1.0}})
        sample.paint(pol, "a red sun", mode, config=cfg)
    assert seen and set(seen) == {0.5}


def test_a_metrics_line_times_the_same_steps_it_counts_the_environment_over(tmp_path, monkeypatch):
    """With logging_steps above 1 a line's environment time is the window's (every step since the last line), but
    step_time was the last step's alone: env_time_share was the window's environment seconds over one step's (a tiny
    run: ~0.20 with logging_steps 1, 0.34-0.37 with 2). The line's times are per-step means over the window now, and
    its share the window's environment seconds over its step seconds: what one line per step would add up to."""
    from types import SimpleNamespace

    from aquarelle.train import grpo

    clock = {"t": 0.0}
    monkeypatch.setattr(grpo, "time", SimpleNamespace(perf_counter=lambda: clock["t"]))

    class Timer:  # the environment seconds each step spent, handed over at the next take()
        def __init__(self):
            self.s = 0.0

        def take(self):
            s, self.s = self.s, 0.0
            return s, 0

    def lines(logging_steps):
        out = tmp_path / f"every{logging_steps}"
        out.mkdir()
        timer = Timer()
        callback = grpo._metrics_callback(out, grpo.Recorder(out, "sketch", 64), timer)
        state = TrainerState()
        for step, (seconds, env) in enumerate([(4.0, 1.0), (1.0, 0.0), (2.0, 0.5), (3.0, 0.0)], start=1):
            callback.on_step_begin(None, state, None)
            clock["t"] += seconds
            timer.s += env
            state.global_step = step
            callback.on_step_end(None, state, None)
            if step % logging_steps == 0:
                callback.on_log(None, state, None, logs={"loss": 0.0})
        return [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]

    every1, every2 = lines(1), lines(2)
    assert [m["env_time_share"] for m in every1] == [0.25, 0.0, 0.25, 0.0]
    assert [m["step"] for m in every2] == [2, 4]
    assert [m["step_time"] for m in every2] == [2.5, 2.5]  # per-step means over the window (was 1.0, 3.0)
    assert [m["env_time"] for m in every2] == [0.5, 0.25]  # (was 1.0, 0.5)
    assert [m["env_time_share"] for m in every2] == [0.2, 0.1]  # 1 s of 5, 0.5 s of 5 (was 1.0, 0.1667)


def test_resume_and_eval_read_a_runs_summary_alike(tmp_path):
    """`train --resume` (grpo._finished) and eval (run.Run.summary) read summary.json through one function,
    aquarelle.train.read_summary, which eval imports without the trainer's modules."""
    import subprocess
    import sys

    from aquarelle.eval.run import load_run
    from aquarelle.train import read_summary
    from aquarelle.train.grpo import _finished
    from eval_fixtures import make_run

    run = make_run(tmp_path / "run", steps=2)
    (run / "checkpoint").mkdir()
    (run / "checkpoint" / "aquarelle.json").write_text("{}")
    done = str(run / "checkpoints" / "checkpoint-2")
    for text, want in (('{"steps": 2, "reward_mean": 0.5}', {"steps": 2, "reward_mean": 0.5}), ("[2]", {}),
                       ('{"steps": 2', {}), ("\udcff".encode("utf-8", "surrogateescape"), {}), (None, {})):
        f = run / "summary.json"
        f.unlink(missing_ok=True)
        if isinstance(text, bytes):
            f.write_bytes(text)
        elif text is not None:
            f.write_text(text)
        assert read_summary(run) == want and load_run(run).summary == want
        assert _finished(run, done, 2) == (want or None)
    assert _finished(run, str(run / "checkpoints" / "checkpoint-1"), 2) is None
    code = "import sys, aquarelle.eval.run; print(sorted(m for m in sys.modules if m.startswith('aquarelle.train')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['aquarelle.train']"


SUN = ("function setup() { createCanvas(600, 600, WEBGL); }\n"
       "function draw() { translate(-width / 2, -height / 2); brush.fill('red', 120);\n"
       "  brush.circle(300, 300, 150); noLoop(); }")
GATE_ONLY = {"gate": 1.0, "length": 0.0, "judge": 0.0, "preference": 0.0}  # (partial weights fill in from the preset)


def test_a_sketch_over_the_actions_size_is_the_gates_zero_with_its_reason_not_an_infrastructure_none():
    """A 1 MiB completion came back reward None, "environment failed: 1 validation error for WatercolourAction":
    the model's fault counted as our failure and dropped from learning."""
    from aquarelle.env.models import MAX_SKETCH_CHARS
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, SketchScorer

    cfg = load_config(None, {"env.image_size": 64, "reward.weights": GATE_ONLY})
    out = SketchScorer(cfg, EnvTimer()).score(SUN + "//" + "x" * MAX_SKETCH_CHARS, prompt="a red sun", seed=0,
                                              preset=None, weights=cfg.reward.weights)
    assert out.reward == 0.0 and out.error is None and out.breakdown["gate"] == 0.0
    assert out.errors == [f"a sketch has at most {MAX_SKETCH_CHARS} characters, got {len(SUN) + 2 + MAX_SKETCH_CHARS}"]


def test_a_completion_cut_off_while_thinking_says_so_before_the_gates_reason():
    from aquarelle.train.completion import UNFINISHED_THINKING
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, SketchScorer

    cfg = load_config(None, {"env.image_size": 64, "reward.weights": GATE_ONLY})
    scorer = SketchScorer(cfg, EnvTimer())
    code, out = scorer.score_completion(f"<think>\nA red sun. Draft:\n```js\n{SUN}", prompt="a red sun", seed=0,
                                        preset=None, weights=cfg.reward.weights)
    assert code == "" and out.reward == 0.0 and out.errors[0] == UNFINISHED_THINKING
    assert "missing skeleton" in out.errors[1]
    code, out = scorer.score_completion(f"<think>a sun</think>\n```JavaScript\n{SUN}\n```", prompt="a red sun",
                                        seed=0, preset=None, weights=cfg.reward.weights)
    assert code == SUN and out.reward == 1.0 and out.errors == []


def test_a_revise_episode_keeps_why_its_sketch_was_refused_and_reads_a_fenced_sketch():
    """submit_sketch("```js ...```") was run as JavaScript ("" is not a function: a gate 0 for a valid sketch), and a
    refused sketch's reason was lost from the rollout's record: finish left errors [] and "reward 0.000"."""
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import env_class, finish_episode
    from aquarelle.train.tool_env import ToolError

    cfg = load_config(None, {"mode": "revise", "env.image_size": 64, "reward.weights": GATE_ONLY})
    env = env_class("revise", cfg.env.action_space, cfg)()
    env.reset(prompt="a red sun", seed=1)
    with pytest.raises(ToolError) as refused:
        env.submit_sketch(SUN.replace("brush.fill(", "brush.fil("))
    out = finish_episode(env)
    assert out.reward == 0.0 and out.errors == [str(refused.value)] and "brush.fil" in out.errors[0]

    env.reset(prompt="a red sun", seed=1)
    assert env.refusals == [] and env.errors == []
    assert env.submit_sketch(f"Here it is:\n```javascript\n{SUN}\n```\n").startswith("Score 1.00")
    out = finish_episode(env)
    assert out.reward == 1.0 and out.source == SUN and out.errors == []
    env.reset(prompt="a red sun", seed=1)
    with pytest.raises(ToolError, match="code holds no sketch"):
        env.submit_sketch("```js\n```")


def test_paint_stops_where_grpo_stops_and_reads_the_sketch_without_special_tokens():
    """Evaluation stopped only at the tokenizer's eos (GRPO at every eos of the generation config, Llama 3's
    <|eot_id|> and <|eom_id|>) and scored the text with its end token still in it."""
    from types import SimpleNamespace

    from aquarelle.train.sample import stop_ids

    def pol(tok_eos, gen_eos):
        return SimpleNamespace(tokenizer=SimpleNamespace(eos_token_id=tok_eos),
                               model=SimpleNamespace(generation_config=SimpleNamespace(eos_token_id=gen_eos)))

    assert stop_ids(pol(2, 2)) == [2]
    assert stop_ids(pol(128009, [128001, 128008, 128009])) == [128001, 128008, 128009]
    assert stop_ids(pol(7, [128001, 128008])) == [7, 128001, 128008]
    assert stop_ids(pol(7, None)) == [7]


def test_a_llama_3_template_is_known_to_carry_one_tool_call_per_turn():
    """TRL's Llama 3.1/3.2 parser reads one call per assistant turn (a second as text): with the default two tool
    turns such a policy paints two calls, unsaid; train says so when it loads the policy."""
    from types import SimpleNamespace

    from trl.chat_template_utils import llama3_1_chat_template, llama3_2_chat_template, qwen2_5_chat_template

    from aquarelle.train.model import one_call_per_turn

    assert one_call_per_turn(SimpleNamespace(chat_template=llama3_1_chat_template))
    assert one_call_per_turn(SimpleNamespace(chat_template=llama3_2_chat_template))
    assert not one_call_per_turn(SimpleNamespace(chat_template=qwen2_5_chat_template))
    assert not one_call_per_turn(SimpleNamespace(chat_template=None))


def test_a_rollout_line_records_its_episodes_seed(tmp_path):
    """A sketch-mode rollout's code could not be scored again: the seed it was painted under (the group seed of
    its prompt) was written nowhere, and an unseeded sketch paints another picture under another seed."""
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer
    from aquarelle.train.grpo import Recorder, make_reward_func

    cfg = load_config(None, {"mode": "sketch", "env.image_size": 64, "reward.weights": GATE_ONLY})
    recorder = Recorder(tmp_path, "sketch", 64)
    reward_fn = make_reward_func(cfg, recorder, EnvTimer(), num_generations=1)
    out = reward_fn(prompts=[[]], completions=[[{"role": "assistant", "content": f"```js\n{SUN}\n```"}]],
                    environments=None, trainer_state=TrainerState(), painting_prompt=["a red sun"], seed=[7])
    line = json.loads((tmp_path / "rollouts.jsonl").read_text().splitlines()[0])
    assert out == [1.0] and line["seed"] == 7 and line["code"] == SUN


def test_a_template_that_opens_think_in_the_prompt_is_read_as_reasoning_first():
    """Qwen3 thinking templates (and R1 distills) open <think> in the generation prompt: a completion cut off while
    reasoning has no <think> of its own, and the draft sketch inside its reasoning was scored as the answer."""
    from trl.chat_template_utils import qwen2_5_chat_template

    from aquarelle.train.completion import UNFINISHED_THINKING, prompt_opens_thinking
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, SketchScorer
    from aquarelle.train.model import byte_tokenizer

    tok = byte_tokenizer()
    tok.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
                         "{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}")
    assert prompt_opens_thinking(tok)
    tok.chat_template = qwen2_5_chat_template
    assert not prompt_opens_thinking(tok)
    tok.chat_template = None
    assert not prompt_opens_thinking(tok)  # no template: nothing opened

    cfg = load_config(None, {"mode": "sketch", "env.image_size": 64, "reward.weights": GATE_ONLY})
    scorer = SketchScorer(cfg, EnvTimer())
    cut = f"A sun. A first try:\n```js\n{SUN}\n```\nbut it should be redder, so"
    code, out = scorer.score_completion(cut, prompt="a red sun", seed=0, preset=None, weights=GATE_ONLY,
                                        opens_thinking=True)
    assert code == "" and out.reward == 0.0 and out.errors[0] == UNFINISHED_THINKING
    code, out = scorer.score_completion(f"a red circle.\n</think>\n```js\n{SUN}\n```", prompt="a red sun", seed=0,
                                        preset=None, weights=GATE_ONLY, opens_thinking=True)
    assert code == SUN and out.reward == 1.0


def test_a_rollout_cut_off_inside_a_tool_call_says_its_calls_never_ran(tmp_path):
    """A revise rollout cut off by the token budget inside submit_sketch was recorded with errors [] and "Finished
    without a sketch ... nothing painted"; eval counts such a call once, from the transcript."""
    from aquarelle.eval.metrics import policy_errors
    from aquarelle.eval.run import Rollout
    from aquarelle.train.completion import NEVER_RAN
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import EnvTimer, env_class
    from aquarelle.train.grpo import Recorder, make_reward_func

    cfg = load_config(None, {"mode": "revise", "env.image_size": 64, "reward.weights": GATE_ONLY,
                             "generation.max_completion_length": 1024})
    recorder = Recorder(tmp_path, "revise", 64)
    reward_fn = make_reward_func(cfg, recorder, EnvTimer(), num_generations=2)
    cut = '<tool_call>\n{"name": "submit_sketch", "arguments": {"code": "function setup() { createCanvas(600, 600'
    bad = '<tool_call>\n{"name": "submit_sketch", "arguments": {"code": \'x\'}}\n</tool_call>'
    envs = []
    for _ in range(2):
        env = env_class("revise", cfg.env.action_space, cfg)()
        env.reset(prompt="a red sun", seed=1)
        envs.append(env)
    out = reward_fn(prompts=[[]] * 2, completions=[[{"role": "assistant", "content": cut}],
                                                   [{"role": "assistant", "content": bad}]],
                    environments=envs, trainer_state=TrainerState(), painting_prompt=["a red sun"] * 2)
    lines = [json.loads(x) for x in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert out == [0.0, 0.0]
    assert lines[0]["errors"] == [NEVER_RAN + "the completion ended inside one (generation.max_completion_length "
                                               "1024 tokens)"]
    assert lines[1]["errors"] == [NEVER_RAN + "1 in one turn could not be parsed, so none of that turn's ran"]
    r = Rollout.from_dict(lines[0])
    assert r.transcript is not None and policy_errors(r) == ["malformed tool call (no response)"]  # once


def test_a_warm_starts_log_lines_go_to_stderr_not_to_trains_stdout(tmp_path, capfd):
    """`train`'s stdout carries GRPO's log lines and its summary (docs/config.md); the warm start's SFT printed its
    40 {'loss': ...} lines and train_runtime there first."""
    from aquarelle.brush import Program
    from aquarelle.train.config import SFTSection, load_config
    from aquarelle.train.data import Demo
    from aquarelle.train.envglue import env_class
    from aquarelle.train.model import tiny_model
    from aquarelle.train.sft import build_examples, run_sft

    cfg = load_config(None, {"env.action_space": SPACE})
    prog = Program.from_calls([("fill", ["#d7263d", 180]), ("circle", [300, 300, 150])])
    examples = build_examples([Demo("sun", "a red sun", "love", prog)], mode="tools", action_space=SPACE,
                              env_cls=env_class("tools", SPACE, cfg))
    run_sft(tiny_model(), examples, tmp_path / "warm", SFTSection(steps=2, batch_size=1, max_length=4096,
                                                                  train_layers=None), progress=False)
    out, err = capfd.readouterr()
    assert "'loss'" not in out and "train_runtime" not in out
    assert "'loss'" in err


def test_env_reconnect_s_reaches_each_rollouts_backend():
    """make_tool_env took reconnect_s, but a training config could not set it: every run waited 180 s."""
    from aquarelle.train.config import load_config
    from aquarelle.train.envglue import env_class

    cfg = load_config(None, {"env.action_space": SPACE, "env.urls": [_dead_url()], "env.reconnect_s": 2.5})
    assert env_class("tools", SPACE, cfg)()._backend.reconnect_s == 2.5
    with pytest.raises(Exception, match="reconnect_s"):
        load_config(None, {"env.reconnect_s": -1})


def test_trls_dump_of_an_unscored_rollout_is_one_line():
    """TRL warned, each step of a scorer outage, with the unscored rollout's every reward kwarg (prompt, completion,
    transcript: thousands of characters); a reward None is ours, its reason recorded, so one line says so."""
    import logging

    from aquarelle.train.grpo import _short_unscored_warning

    said: list[str] = []
    heard = logging.Handler()
    heard.emit = lambda record: said.append(record.getMessage())
    log = logging.getLogger("trl.trainer.grpo_trainer")
    log.addHandler(heard)
    try:
        _short_unscored_warning()
        _short_unscored_warning()  # once per run, however often it is called
        kwargs = {"prompt": "a red sun " * 300, "completion": "brush.circle(1, 2, 3) " * 300}
        log.warning(f"All reward functions returned None for the following kwargs:\n{kwargs}\n"
                    "Please ensure that at least one reward function returns a valid reward.")
        log.warning("something else TRL says")
    finally:
        log.removeHandler(heard)
    assert len(said) == 2 and said[1] == "something else TRL says", said
    assert "\n" not in said[0] and len(said[0]) < 200 and "unscored" in said[0] and "red sun" not in said[0]
    assert sum(getattr(f, "__name__", "") == "one_line" for f in log.filters) == 1
