"""`aquarelle train` checks its settings before any model loads (fast: nothing is trained here).

Each case below used to cost the model's load and warm start (minutes) before failing,
or, for the reward section, trained a whole run whose every rollout went unscored.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aquarelle.rewards.config import RewardConfig
from aquarelle.train.config import ConfigError, config_from
from aquarelle.train.preflight import check_env_urls, check_out
from serve_process import ServeProcess, StubServer, free_port


def _train(tmp_path, *args: str, config: dict | None = None, **more_env: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "aquarelle.cli", "train", *args]
    if config is not None:
        path = tmp_path / "c.json"
        path.write_text(json.dumps(config))
        cmd += ["--config", str(path)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AQUARELLE_")}
    env.update(OMP_NUM_THREADS="1", AQUARELLE_CACHE=str(tmp_path / "cache"))  # a model load would show up there
    env.update(more_env)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def _one_line(r: subprocess.CompletedProcess, *words: str) -> None:
    assert r.returncode == 2, r.stderr[-2000:]
    assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1, r.stderr[-2000:]
    for w in words:
        assert w in r.stderr


@pytest.mark.parametrize("config, words", [
    ({"optim": {"extra_grpo_args": {"bogus_arg": 1}}}, ("optim.extra_grpo_args", "bogus_arg")),
    ({"generation": {"num_generations": 3}, "optim": {"extra_grpo_args": {"generation_batch_size": 4}}},
     ("optim.extra_grpo_args", "divisible")),
    # GRPOConfig takes these without a word; the run failed inside TRL's trainer, after the warm start
    ({"optim": {"extra_grpo_args": {"learning_rate": "abc"}}},
     ("optim.extra_grpo_args.learning_rate: must be a finite number, got 'abc'",)),
    ({"optim": {"extra_grpo_args": {"gradient_accumulation_steps": 1.5}}},
     ("optim.extra_grpo_args.gradient_accumulation_steps: must be a whole number",)),
    ({"optim": {"extra_grpo_args": {"bf16": "yes"}}}, ("optim.extra_grpo_args.bf16: must be true or false",)),
    ({"reward": {"extra": {"bogus": 1}}}, ("reward", "extra.bogus")),
    ({"reward": {"weights": {"judgee": 1.0}}}, ("reward", "judgee")),
    ({"reward": {"judge_backend": "openai"}}, ("reward.judge_url",)),
    ({"reward": {"preference_backend": "hpsv3"}}, ("reward.preference_url",)),
    # a URL without a scheme loaded, and every judged reward was None ("judge unreachable ...")
    ({"reward": {"judge_backend": "openai", "judge_url": "judge:8000/v1"}},
     ("reward.judge_url", "'judge:8000/v1' is not an http(s) URL with a host")),
    ({"reward": {"preference_backend": "hpsv3", "preference_url": "ftp://hps/"}},
     ("reward.preference_url", "'ftp://hps/' is not an http(s) URL with a host")),
    pytest.param({"generation": {"use_vllm": True}}, ("generation.use_vllm",),
                 marks=pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm installed")),
    # found missing after the model loaded: the run went on unlogged
    pytest.param({"optim": {"trackio": True}}, ("optim.trackio: trackio is not installed",),
                 marks=pytest.mark.skipif(importlib.util.find_spec("trackio") is not None, reason="trackio installed")),
])
def test_a_wrong_setting_fails_before_the_default_model_loads(tmp_path, config, words):
    out = tmp_path / "run"
    r = _train(tmp_path, "--out", str(out), config=config)  # the CPU default: its load would take minutes
    _one_line(r, *words)
    assert not out.exists() and not (tmp_path / "cache").exists()


def test_an_env_server_that_is_not_up_fails_at_once(tmp_path):
    out = tmp_path / "run"
    r = _train(tmp_path, "--out", str(out), "--env-url", f"http://127.0.0.1:{free_port()}")
    _one_line(r, "does not answer")
    r = _train(tmp_path, "--out", str(out), "--env-url", "ftp://x")
    _one_line(r, "env.urls")
    assert not out.exists()


def test_a_judge_without_its_pool_is_refused_before_a_run_or_a_server_starts(tmp_path, monkeypatch):
    """A mistyped AQUARELLE_POOL (or reward.extra.pool_dir) left the judge without references: `train` ran (the
    warm start first, ~20 min for the CPU default) and every judged reward was None; `aquarelle serve` started and
    answered every episode with None. Now each is one line before anything starts; a run that does not weigh the
    judge needs no pool."""
    from aquarelle.env.scoring import server_reward_config
    from aquarelle.rewards.config import RewardError
    from aquarelle.train.preflight import check_reward

    monkeypatch.setenv("AQUARELLE_POOL", str(tmp_path / "nope"))
    # the variable named it, not a config key no one set
    with pytest.raises(ConfigError, match=r"^AQUARELLE_POOL: no pool at .*nope/pool.json \(set "
                                          r"AQUARELLE_POOL or pool_dir\)"):
        check_reward(config_from({}))
    with pytest.raises(ConfigError, match=r"^config key reward.extra.pool_dir: no pool at /no/where/pool.json"):
        check_reward(config_from({"reward": {"extra": {"pool_dir": "/no/where"}}}))
    check_reward(config_from({"reward": {"preset": "hps-only"}}))
    with pytest.raises(RewardError, match=r"^AQUARELLE_POOL: no pool at .*nope/pool.json"):
        server_reward_config(None)  # `aquarelle serve` without --config
    cfg = tmp_path / "c.yaml"
    cfg.write_text("reward:\n  extra: {pool_dir: /no/such/pool}\n")
    monkeypatch.delenv("AQUARELLE_POOL")
    with pytest.raises(RewardError, match=r"^reward config .*c.yaml: pool_dir: no pool at /no/such/pool/pool.json"):
        server_reward_config(str(cfg))
    server_reward_config(None)  # the repository's pool


def test_a_pool_whose_reference_sketch_is_broken_or_badly_named_is_refused_before_a_start(tmp_path, monkeypatch):
    """A love painting's sketch with a syntax error passed the start-up check (it drew references but rendered none):
    `aquarelle serve` said healthy and the episodes whose seed drew it were scored None mid-run. An id "../../x"
    read and wrote files outside the pool, and hf10 "yes" was taken as true."""
    import json
    import shutil

    from aquarelle.env.scoring import server_reward_config
    from aquarelle.rewards.config import RewardError
    from aquarelle.rewards.pool import Pool
    from aquarelle.train.preflight import check_reward

    mine = tmp_path / "pool"
    shutil.copytree(Pool().root, mine)
    monkeypatch.setenv("AQUARELLE_POOL", str(mine))
    check_reward(config_from({}))  # the repository's paintings (renders cached): passes
    data = json.loads((mine / "pool.json").read_text())
    love = next(e["id"] for e in data["paintings"] if e["tier"] == "love" and e["split"] == "design")
    (mine / "sketches" / f"{love}.js").write_text("function setup( {")
    with pytest.raises(ConfigError, match=rf"^AQUARELLE_POOL: pool sketch {love}: .*yntax.*\(a love reference the "
                                          r"judge draws\)$"):
        check_reward(config_from({}))
    with pytest.raises(RewardError, match=rf"^AQUARELLE_POOL: pool sketch {love}: "):
        server_reward_config(None)
    check_reward(config_from({"reward": {"preset": "hps-only"}}))  # no judge, no pool needed
    for field, bad in (("id", "../../evil"), ("id", ""), ("hf10", "yes")):
        broken = json.loads(json.dumps(data))
        broken["paintings"][0][field] = bad
        (mine / "pool.json").write_text(json.dumps(broken))
        with pytest.raises(ConfigError, match=r"^AQUARELLE_POOL: .*pool\.json.*" + field) as e:
            check_reward(config_from({}))
        assert "\n" not in str(e.value)


def test_an_env_server_that_is_not_up_is_started_with_the_runs_config_file():
    """docs/config.md: start each of a run's env.urls servers with the run's file. The fix the error names says
    so: a bare `aquarelle serve` would score with the embedded defaults, and the next try would be refused."""
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ConfigError) as err:
        check_env_urls([url], RewardConfig(), config_file="gpu.yaml")
    assert "does not answer" in str(err.value) and "start it with `aquarelle serve --config gpu.yaml`" in str(err.value)
    with pytest.raises(ConfigError, match=r"start it with `aquarelle serve`, or leave env.urls empty"):
        check_env_urls([url])  # no config file: the defaults


def test_an_env_url_with_a_query_or_a_wrong_path_is_refused_in_one_line_that_says_why():
    """The client puts /ws at the URL's end, after any query: ``http://host:port/?token=abc`` passed this check (it
    read the URL without the query) and then every rollout failed, HTTP 403. A server that answers but not at
    /health (a path that is not its root) was told to be started, which it was."""
    stub = StubServer(scoring=None)
    try:
        for bad in (stub.url + "/?token=abc", stub.url + "#frag"):
            with pytest.raises(ConfigError, match=r"^config key env.urls: .* has a query or fragment"):
                check_env_urls([bad])
        with pytest.raises(ConfigError) as err:
            check_env_urls([stub.url + "/env"])
        assert f"answered HTTP 404 at {stub.url}/env/health: give the URL of the server's root" in str(err.value)
        assert "start it" not in str(err.value)
    finally:
        stub.stop()


def test_with_env_servers_the_trainer_needs_no_judge_url_of_its_own(tmp_path):
    """With env.urls the servers score, each with its own judge URL: the trainer calls no judge itself. `train`
    refused such a config without a judge_url (or AQUARELLE_JUDGE_URL) on the trainer's machine; `paint` took it."""
    from aquarelle.train.preflight import check_reward

    cfg = config_from({"reward": {"judge_backend": "openai"}, "env": {"urls": ["http://127.0.0.1:9"]}})
    env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("AQUARELLE_JUDGE")}
    try:
        check_reward(cfg)  # nothing missing: the servers have their URLs
        with pytest.raises(ConfigError, match="reward.judge_url: the openai judge needs a URL"):
            check_reward(cfg.model_copy(update={"env": cfg.env.model_copy(update={"urls": []})}))  # in-process
    finally:
        os.environ.update(env)


@pytest.fixture(scope="module")
def default_server():
    """A real `aquarelle serve` with no --config (the embedded default reward config), workers inline."""
    server = ServeProcess(max_sessions=2, workers=0)
    yield server
    server.stop()


def test_a_running_env_server_passes(default_server):
    url = default_server.url
    check_env_urls([url, url.replace("http://", "ws://"), url.removeprefix("http://")])
    check_env_urls([url, url.replace("http://", "ws://") + "/"], RewardConfig())  # and scores as a default run


def test_a_run_whose_reward_config_differs_from_a_running_env_server_is_refused(default_server, tmp_path):
    """A reset sends only the preset or weights, so the server scored with its own backends: a run configured
    with a vLLM judge (or other references, another render size) on default servers was silently scored by the
    local critic. Now the run stops in seconds, naming the server, the fields, both values and the fix."""
    url = default_server.url
    with pytest.raises(ConfigError) as err:
        check_env_urls([url], RewardConfig(render_size=128), config_file="gpu.yaml")
    assert str(err.value) == (f"environment server {url} scores differently from this run (render_size: server 256, "
                              "run 128): start it with `aquarelle serve --config gpu.yaml`")
    # what the run never asks for is not compared: a judge weighed 0, another URL of the same service
    check_env_urls([url], RewardConfig(preset="hps-only", judge_backend="openai", judge_url="http://judge:8000/v1"))
    check_env_urls([url], RewardConfig(judge_model="another", judge_image_size=256, judge_url="http://x/v1"))

    out = tmp_path / "run"
    config = {"env": {"urls": [url]}, "reward": {"preset": "hps-led", "judge_backend": "openai",
                                                  "judge_url": "http://127.0.0.1:9/v1", "judge_model": "vlm",
                                                  "extra": {"references": {"love": 1, "okay": 0}}}}
    r = _train(tmp_path, "--out", str(out), config=config)  # the CPU default: its load would take minutes
    _one_line(r, f"environment server {url} scores differently", 'judge_backend: server "local", run "openai"',
              'references: server {"love": 2, "okay": 2}, run {"love": 1, "okay": 0}',
              'judge_model: server null, run "vlm"',
              f"`aquarelle serve --config {tmp_path / 'c.json'}`")
    assert not out.exists() and not (tmp_path / "cache").exists()


def test_an_env_server_judging_against_another_pool_is_refused(tmp_path):
    """The judge's references are the pool's paintings: a server with another pool (another AQUARELLE_POOL, an
    older checkout) judged every rollout against other references, and nothing said so."""
    import shutil

    from aquarelle.rewards.pool import default_pool_dir

    pool = tmp_path / "pool"
    shutil.copytree(default_pool_dir(), pool, ignore=shutil.ignore_patterns("images"))
    data = json.loads((pool / "pool.json").read_text())
    data["paintings"][0]["tier"] = "okay" if data["paintings"][0]["tier"] == "love" else "love"  # one re-rating
    (pool / "pool.json").write_text(json.dumps(data))
    server = ServeProcess(max_sessions=2, workers=0, env={"AQUARELLE_POOL": str(pool)})
    try:
        pattern = (f"^environment server {server.url} scores differently from this run "
                   '[(]pool: server "[0-9a-f]{16}", run "[0-9a-f]{16}"[)]')
        with pytest.raises(ConfigError, match=pattern):
            check_env_urls([server.url], RewardConfig())
        check_env_urls([server.url], RewardConfig(preset="hps-only"))  # no judge: its references never count
        check_env_urls([server.url], RewardConfig(pool_dir=str(pool)))  # the same pool passes
    finally:
        server.stop()


def test_an_env_server_that_does_not_describe_its_scoring_is_one_line():
    """An aquarelle from before /scoring (or something else on that port) cannot be checked: one line, no
    traceback, never a run scored by unknown scorers."""
    older, other = StubServer(scoring=None), StubServer(scoring=["not", "a", "description"])
    try:
        check_env_urls([older.url])  # answering /health is still all that is asked without a reward config
        with pytest.raises(ConfigError, match=rf"^environment server {older.url} does not say how it scores "
                                              r"\(GET /scoring: HTTP 404; an aquarelle older than this one\?\)"):
            check_env_urls([older.url], RewardConfig())
        with pytest.raises(ConfigError, match="answered GET /scoring with something that is not a scoring"):
            check_env_urls([other.url], RewardConfig())
    finally:
        older.stop()
        other.stop()


def test_out_must_not_be_a_file_or_an_earlier_run(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("mine")
    _one_line(_train(tmp_path, "--out", str(f), "--model", "tiny"), "not a directory")
    assert f.read_text() == "mine"
    run = tmp_path / "run"  # a run killed in its first step: config and rollouts, no metrics yet
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"config": {}}))
    (run / "rollouts.jsonl").write_text('{"step": 1}\n')
    # it has no checkpoint, so --resume cannot continue it: the line says what can be done instead
    _one_line(_train(tmp_path, "--out", str(run), "--model", "tiny"), "already holds a run", "cannot be resumed",
              "remove it")
    assert (run / "rollouts.jsonl").read_text() == '{"step": 1}\n'
    (run / "checkpoints" / "checkpoint-2").mkdir(parents=True)
    with pytest.raises(ConfigError, match="use --resume to continue it"):
        check_out(run, resume=False)
    check_out(run, resume=True)
    check_out(tmp_path / "new", resume=False)


def test_resume_with_a_damaged_config_json_is_one_line(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text('{"config": {"mode": "tools"')  # cut off mid-write
    _one_line(_train(tmp_path, "--out", str(run), "--resume"), "config.json", "not valid")
    (run / "config.json").write_text(json.dumps({"argv": []}))
    _one_line(_train(tmp_path, "--out", str(run), "--resume"), "no \"config\" object")
    (run / "config.json").write_text(json.dumps({"config": config_from({}).model_dump()}))
    _one_line(_train(tmp_path, "--out", str(run), "--resume"), "no checkpoint")


def test_a_resume_that_would_train_the_run_otherwise_is_one_line(tmp_path):
    """`train --resume --mode tools --preset judge-led` on a sketch-mode hps-only run trained tools-mode steps under
    judge-led, exit 0, while config.json (and eval, and the report) went on saying sketch and hps-only."""
    from aquarelle.train.grpo import record_resume

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"config": config_from(
        {"mode": "sketch", "reward": {"preset": "hps-only"}, "optim": {"max_steps": 2}}).model_dump()}))
    _one_line(_train(tmp_path, "--out", str(run), "--resume", "--mode", "tools", "--preset", "judge-led"),
              "--resume continues the run as its config.json says: mode would be 'tools', the run trained with "
              "'sketch' (and 1 more: reward.preset)")
    _one_line(_train(tmp_path, "--out", str(run), "--resume", "--max-steps", "4"), "no checkpoint")  # allowed
    record_resume(run, {"from": "checkpoint-2"}, max_steps=4)  # the steps it now trains to
    assert json.loads((run / "config.json").read_text())["config"]["optim"]["max_steps"] == 4


def test_a_model_that_will_not_load_leaves_no_run_directory(tmp_path):
    """`train --model /no/such/model` (or a Hub id it could not fetch) said so in one line but left an empty --out
    behind (and its new parents). A local path is checked in the preflight, before --out is made; a start that
    fails later, before writing anything (offline and not cached: found only when the tokenizer loads), removes the
    folders it made."""
    out = tmp_path / "a" / "run"
    _one_line(_train(tmp_path, "--out", str(out), "--model", "/no/such/model"),
              "model path '/no/such/model' does not exist")
    assert not (tmp_path / "a").exists()
    out = tmp_path / "b" / "run"
    r = _train(tmp_path, "--out", str(out), "--model", "aquarelle-tests/no-such-model", HF_HUB_OFFLINE="1")
    _one_line(r, "cannot load the tokenizer of 'aquarelle-tests/no-such-model'")
    assert not (tmp_path / "b").exists()


def test_a_failed_start_keeps_folders_that_hold_something_or_were_there(tmp_path, monkeypatch):
    from aquarelle.train import grpo

    def fails(cfg, out, **kw):
        Path(out).mkdir(parents=True, exist_ok=True)
        if kw["demos"] == "write":
            (Path(out) / "config.json").write_text("{}")
        raise RuntimeError("boom")

    monkeypatch.setattr(grpo, "_train", fails)
    cfg = config_from({})
    for out, demos in ((tmp_path / "x" / "y" / "run", None), (tmp_path / "w" / "run", "write")):
        with pytest.raises(RuntimeError, match="boom"):
            grpo.train(cfg, out, demos=demos)
    assert not (tmp_path / "x").exists()
    assert (tmp_path / "w" / "run" / "config.json").is_file()  # a run that wrote something is kept whole
    there = tmp_path / "there"
    there.mkdir()
    with pytest.raises(RuntimeError, match="boom"):
        grpo.train(cfg, there, demos=None)
    assert there.is_dir()  # --out that existed (empty) is left as it was


#: what vLLM's /server_info?config_format=json answers (its engine config under vllm_config, as TRL 1.16's
#: ``VLLMClient.get_server_info`` reads it), for a server started with a weight-transfer engine
READY = {"vllm_config": {"weight_transfer_config": {"backend": "nccl"}, "model_config": {}}, "vllm_env": {},
         "system_env": {}}


class _VLLMStub:
    """A loopback server answering what TRL's vLLM client asks before it syncs weights (``/health``, then
    ``/server_info?config_format=json``): ``info`` None answers 404, as a ``vllm serve`` without
    VLLM_SERVER_DEV_MODE does; ``health`` the status of /health; ``info_delay_s`` how long /server_info takes."""

    def __init__(self, info: object, health: int = 200, info_delay_s: float = 0.0) -> None:
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                if self.path == "/health":
                    code, body = health, {}
                elif self.path == "/server_info?config_format=json" and info is not None:
                    time.sleep(info_delay_s)
                    code, body = 200, info
                else:
                    code, body = 404, {"detail": "Not Found"}
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(body).encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _vllm_args(tmp_path, url: str | None, **extra):
    from aquarelle.train.preflight import grpo_config

    gen = {"use_vllm": True, "vllm_mode": "server", **({"vllm_server_base_url": url} if url else {})}
    return grpo_config(config_from({"generation": gen, "optim": {"extra_grpo_args": extra}}), tmp_path / "run",
                       tools=True)


@pytest.mark.parametrize("info, health, words", [
    # a plain `vllm serve`: generation works, the first weight sync (after the model loaded) did not
    (None, 200, ("does not expose its development endpoints", "trl vllm-serve --model")),
    ({"vllm_config": {"weight_transfer_config": None, "model_config": {}}}, 200, ("has no weight-transfer engine",)),
    # the engine's settings at the top level, not under vllm_config: not what TRL reads
    ({"weight_transfer_config": {"backend": "nccl"}}, 200, ("without a vllm_config",)),
    (READY, 404, ("answered GET /health with HTTP 404: not a vLLM server",)),
])
def test_a_vllm_server_that_cannot_take_the_policys_weights_is_refused_before_the_model_loads(
        tmp_path, info, health, words):
    """TRL asks these only after the model has loaded (and then waits vllm_server_timeout, 240 s, on /health)."""
    from aquarelle.train.preflight import check_vllm_server

    stub = _VLLMStub(info, health)
    try:
        with pytest.raises(ConfigError) as e:
            check_vllm_server(_vllm_args(tmp_path, stub.url + "/"), "Qwen/Qwen3-4B")
        msg = str(e.value)
        assert msg.startswith(f"config key generation.vllm_server_base_url: ") and stub.url in msg, msg
        assert "\n" not in msg and all(w in msg for w in words), msg
    finally:
        stub.stop()


def test_a_vllm_server_ready_for_weights_passes_and_one_not_up_yet_is_a_note(tmp_path):
    from aquarelle.train.preflight import check_vllm_server

    notes: list[str] = []
    stub = _VLLMStub(READY)
    try:
        check_vllm_server(_vllm_args(tmp_path, stub.url), "m", log=notes.append)
        assert notes == []
        # without a base URL TRL reads its host and port keywords
        port = stub.server.server_address[1]
        check_vllm_server(_vllm_args(tmp_path, None, vllm_server_host="127.0.0.1", vllm_server_port=port), "m",
                          log=notes.append)
        assert notes == []
    finally:
        stub.stop()
    # a server still starting beside the trainer (compose, a job array) is not refused: TRL waits for it
    check_vllm_server(_vllm_args(tmp_path, f"http://127.0.0.1:{free_port()}", vllm_server_timeout=90), "m",
                      log=notes.append)
    assert len(notes) == 1 and "not ready yet" in notes[0] and "waits up to 90 s" in notes[0], notes
    # so is one whose engine is still starting behind /health (503), or slow to describe itself (vLLM collects its
    # environment on the first /server_info): TRL would have waited for both
    for stub, kw in ((_VLLMStub(READY, health=503), {}), (_VLLMStub(READY, info_delay_s=2.0), {"info_timeout_s": 0.5})):
        try:
            check_vllm_server(_vllm_args(tmp_path, stub.url), "m", log=notes.append, **kw)
        finally:
            stub.stop()
    assert len(notes) == 3 and "HTTP 503" in notes[1] and "GET /server_info: timed out" in notes[2], notes
    notes[:] = notes[:1]
    # colocate mode asks no server
    from aquarelle.train.preflight import grpo_config

    check_vllm_server(grpo_config(config_from({"generation": {"use_vllm": True}}), tmp_path / "r", tools=True),
                      "m", log=notes.append)
    assert len(notes) == 1


def test_a_vllm_server_serving_another_model_is_a_note(tmp_path):
    """TRL overwrites the served model's weights with the policy's each step: a server started for another model
    fails only once the policy has loaded, so train says which model it serves (a note: a local copy of the same
    model under another path is common)."""
    from aquarelle.train.preflight import check_vllm_server

    def served(name: str) -> dict:
        return {**READY, "vllm_config": {**READY["vllm_config"], "model_config": {"model": name}}}

    notes: list[str] = []
    for name in ("Qwen/Qwen3-4B", "/models/qwen3-4b/", "meta-llama/Llama-3.2-1B"):
        stub = _VLLMStub(served(name))
        try:
            check_vllm_server(_vllm_args(tmp_path, stub.url), "Qwen/Qwen3-4B", log=notes.append)
        finally:
            stub.stop()
    assert len(notes) == 1, notes
    assert "serves meta-llama/Llama-3.2-1B" in notes[0] and "trains Qwen/Qwen3-4B" in notes[0], notes
    assert "trl vllm-serve --model Qwen/Qwen3-4B" in notes[0] and "\n" not in notes[0], notes


def test_train_asks_the_vllm_server_before_any_model_loads(tmp_path):
    """The check is wired into `aquarelle train`'s preflight: a plain vLLM server is one line, before the model
    (the CPU default would load for minutes). vllm itself is not installed here: a stand-in package makes
    ``import vllm`` findable, the one thing the earlier check asks of it."""
    fake = tmp_path / "site" / "vllm"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    stub = _VLLMStub(None)
    try:
        r = _train(tmp_path, "--out", str(tmp_path / "run"),
                   config={"generation": {"use_vllm": True, "vllm_mode": "server", "vllm_server_base_url": stub.url}},
                   PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")]))
    finally:
        stub.stop()
    _one_line(r, "generation.vllm_server_base_url", "does not expose its development endpoints")
    assert not (tmp_path / "cache").exists() and not (tmp_path / "run").exists()
