"""`aquarelle eval` end to end: a tiny run trained by the real trainer, both policies sampled through train.sample.paint."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from aquarelle.eval.prompts import pool_prompts

pytestmark = pytest.mark.slow


def _cli(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("tiny") / "run"
    res = _cli("train", "--model", "tiny", "--max-steps", "1", "--num-generations", "2",
               "--max-completion-length", "64", "--out", str(run))
    assert res.returncode == 0, res.stderr[-2000:]
    return run


def test_eval_samples_trained_and_starting_policy_on_heldout_prompts(tiny_run):
    res = _cli("eval", str(tiny_run), "--samples", "2", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    ev = json.loads(res.stdout)
    assert ev == json.loads((tiny_run / "eval.json").read_text())
    rows = [json.loads(x) for x in (tiny_run / "eval_samples.jsonl").read_text().splitlines()]
    assert sorted(r["policy"] for r in rows) == ["start", "start", "trained", "trained"]
    heldout = {p.id for p in pool_prompts() if p.split == "heldout"}
    assert all(r["split"] == "heldout" and r["prompt_id"] in heldout for r in rows)
    # the same prompts for both policies
    assert {r["prompt_id"] for r in rows if r["policy"] == "trained"} == {r["prompt_id"] for r in rows if r["policy"] == "start"}
    for r in rows:  # scored, or unscored with the reason said
        assert r["reward"] is not None or any(e.startswith("infrastructure") for e in r["errors"])
        if r["image"]:
            assert (tiny_run / r["image"]).is_file() and not os.path.isabs(r["image"])
        assert "png_b64" not in r
    assert ev["sampling"]["n"] == 4 and ev["heldout"]["start"]["n"] == 2
    assert not (tiny_run / "eval_samples.jsonl.partial").exists()
    assert ev["tool_adherence_samples"]["transcripts"] == 2  # the trained policy's completions were read
    assert ev["verdicts"]["improves"]["answer"] == "unclear"  # one step: too short to tell, not an error


def test_a_failed_sampling_leaves_the_last_eval_as_it_was(tiny_run):
    """The trained policy is sampled (its images made) before the starting one fails to load: nothing of the
    previous eval may change, or its samples would show paintings they never scored."""
    res = _cli("eval", str(tiny_run), "--samples", "1", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    kept = {p: p.read_bytes() for p in [tiny_run / "eval.json", tiny_run / "eval_samples.jsonl",
                                        *(tiny_run / "eval").rglob("*.png")]}
    assert any(p.suffix == ".png" for p in kept)
    stamps = {p: p.stat().st_mtime_ns for p in kept}  # an empty canvas redrawn has the same bytes: not rewritten
    cfg_path = tiny_run / "config.json"
    good = cfg_path.read_text()
    cfg = json.loads(good)
    cfg["start_policy"] = str(tiny_run / "no-such-model")
    cfg_path.write_text(json.dumps(cfg))
    try:
        res = _cli("eval", str(tiny_run), "--samples", "1", "--seed", "7")
    finally:
        cfg_path.write_text(good)
    assert res.returncode == 1 and "cannot load the start policy" in res.stderr, res.stderr[-2000:]
    assert {p: p.read_bytes() for p in kept} == kept and {p: p.stat().st_mtime_ns for p in kept} == stamps
    assert sorted((tiny_run / "eval").rglob("*.png")) == sorted(p for p in kept if p.suffix == ".png")


@pytest.mark.parametrize("mode", ["tools", "sketch"])
def test_an_env_server_that_is_down_stops_the_sampling_before_a_policy_loads(tiny_run, tmp_path, mode):
    """Each sample used to spend minutes reconnecting to it before being recorded as reward None (sketch mode:
    its sketch scored there, so each painting was made and then lost)."""
    import shutil

    from serve_process import free_port

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    cfg = json.loads((run / "config.json").read_text())
    cfg["config"]["mode"] = mode
    cfg["config"]["env"]["urls"] = [f"http://127.0.0.1:{free_port()}"]
    (run / "config.json").write_text(json.dumps(cfg))
    before = (run / "eval.json").read_bytes() if (run / "eval.json").exists() else None
    res = _cli("eval", str(run), "--samples", "1", timeout=120)
    assert res.returncode == 1 and "does not answer" in res.stderr and "env.urls" in res.stderr, res.stderr[-2000:]
    assert res.stderr.strip().count("\n") == 0
    assert ((run / "eval.json").read_bytes() if (run / "eval.json").exists() else None) == before


def test_an_env_server_that_scores_otherwise_stops_the_sampling_before_a_policy_loads(tiny_run, tmp_path):
    """A server started without the run's reward config scored the eval's paintings with other scorers than
    training's (its own backends, references, sizes: a reset sends only the weights): incomparable rewards."""
    import shutil

    from serve_process import StubServer

    server = StubServer()  # describes the embedded defaults
    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    cfg = json.loads((run / "config.json").read_text())
    cfg["config"]["env"]["urls"] = [server.url]
    cfg["config"]["reward"]["extra"] = {"render_size": 128}
    (run / "config.json").write_text(json.dumps(cfg))
    try:
        res = _cli("eval", str(run), "--samples", "1", timeout=120)
    finally:
        server.stop()
    assert res.returncode == 1 and res.stderr.strip().count("\n") == 0, res.stderr[-2000:]
    for words in (f"environment server {server.url} scores differently", "render_size: server 256, run 128",
                  f"`aquarelle serve --config {run / 'config.json'}`", "env.urls"):
        assert words in res.stderr, res.stderr


def test_an_env_server_that_goes_down_mid_sampling_stops_it_after_the_failed_sample(tiny_run, tmp_path, monkeypatch):
    """Each sample left would otherwise spend the tool env's reconnect time (minutes) before its reward None."""
    import shutil

    from serve_process import StubServer

    from aquarelle.eval.run import load_run
    from aquarelle.eval.sampling import SamplingError, sample_policies
    from aquarelle.train import sample

    server = StubServer()  # /health, and /scoring as a default server describes it (the run's reward config)
    run_dir = tmp_path / "run"
    shutil.copytree(tiny_run, run_dir)
    cfg = json.loads((run_dir / "config.json").read_text())
    cfg["config"]["mode"] = "tools"
    cfg["config"]["env"]["urls"] = [server.url]
    (run_dir / "config.json").write_text(json.dumps(cfg))
    calls = []

    def paint(policy, prompt, **kw):
        calls.append(prompt)
        if len(calls) == 1:
            return {"reward": 0.5, "image": None}
        server.stop()  # the server dies while this sample is painted
        raise ConnectionError("the socket closed")

    monkeypatch.setattr(sample, "paint", paint)
    monkeypatch.setattr(sample, "load_policy", lambda policy: policy)
    sink = tmp_path / "rows.jsonl"
    with pytest.raises(SamplingError) as err:
        sample_policies(load_run(run_dir), pool_prompts(), 3, progress=False, sink=sink)
    assert len(calls) == 2  # the four samples left were not tried
    assert "does not answer" in str(err.value) and "after 2 of 6 samples" in str(err.value)
    assert len(sink.read_text().splitlines()) == 1  # what was sampled before is kept
