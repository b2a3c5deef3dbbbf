"""`aquarelle demo` flags: --fresh must never delete what the demo did not make (fast: nothing is trained)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import typer

from aquarelle.demo import DEMO_MARKER, _clear_out


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_demo_refuses_to_delete_a_directory_it_did_not_make(tmp_path):
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("precious")
    r = _cli("demo", "--out", str(keep))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "did not make" in r.stderr, r.stderr
    assert (keep / "notes.txt").read_text() == "precious"


def test_demo_refuses_a_file_as_out(tmp_path):
    f = tmp_path / "report.html"
    f.write_text("<html>")
    r = _cli("demo", "--out", str(f))
    assert r.returncode == 2 and "not a directory" in r.stderr and "Traceback" not in r.stderr
    assert f.read_text() == "<html>"
    r = _cli("demo", "--out", str(f), "--resume")
    assert r.returncode == 2 and "not a directory" in r.stderr and f.read_text() == "<html>"


def test_fresh_removes_only_a_previous_demo_run(tmp_path):
    marked = tmp_path / "demo"
    (marked / "images").mkdir(parents=True)
    (marked / DEMO_MARKER).touch()
    _clear_out(marked)
    assert not marked.exists()
    legacy = tmp_path / "legacy"  # written before the marker existed: recognised by its train argv
    legacy.mkdir()
    argv = ["/x/cli.py", "train", "--preset", "judge-led", "--mode", "tools", "--max-steps", "3", "--out", "legacy"]
    (legacy / "config.json").write_text(json.dumps({"argv": argv}))
    _clear_out(legacy)
    assert not legacy.exists()
    other = tmp_path / "run"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"argv": ["/x/cli.py", "train", "--out", "run"]}))
    with pytest.raises(typer.Exit):
        _clear_out(other)
    assert (other / "config.json").exists()


def test_demo_with_a_config_runs_its_stages_on_the_files_settings(tmp_path):
    """`demo` ran only on the embedded defaults (judge-led, tools, the CPU default policy): a GPU box could not run
    the whole pipeline on its own model and services without typing the three stages. `--config` hands the file to
    `train`; eval and the report follow the run it made."""
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps({"prompts": [
        {"id": "sun", "subject": "sky", "prompt": "a red sun", "split": "train"},
        {"id": "cat", "subject": "animals", "prompt": "a cat", "split": "heldout"}]}))
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"model: {{name: tiny}}\nmode: sketch\nreward: {{preset: hps-only}}\nprompts: {prompts}\n"
                   "optim: {max_steps: 1}\ngeneration: {num_generations: 2, max_completion_length: 16}\n"
                   "env: {image_size: 64}\n")
    out = tmp_path / "demo"
    missing = _cli("demo", "--out", str(out), "--config", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and missing.stderr.strip() == f"error: --config {tmp_path / 'nope.yaml'}: no " \
                                                                  "such file", missing.stderr
    r = subprocess.run([sys.executable, "-m", "aquarelle.cli", "demo", "--out", str(out), "--config", str(cfg),
                        "--samples", "1"], capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stderr[-3000:]
    conf = json.loads((out / "config.json").read_text())["config"]
    assert conf["mode"] == "sketch" and conf["reward"]["preset"] == "hps-only" and conf["optim"]["max_steps"] == 1
    assert (out / "eval.json").is_file() and (out / "report.html").is_file() and (out / DEMO_MARKER).is_file()
    assert f"[demo] train: aquarelle train --config {cfg} --out {out}" in r.stderr
