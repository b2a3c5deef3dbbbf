"""`aquarelle paint` and `aquarelle sft`: bad input is one line before any model loads, and --out is never
clobbered (fast: tiny models only, one SFT step)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aquarelle.train.data import DataError, load_demos
from aquarelle.train.model import ModelError, load_policy

DATA = Path(__file__).parent / "data"


def _cli(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", AQUARELLE_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, env=env,
                          timeout=180)


def _one_line(r: subprocess.CompletedProcess, *words: str) -> None:
    assert r.returncode == 2, r.stderr[-2000:]
    assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1, r.stderr[-2000:]
    for w in words:
        assert w in r.stderr, r.stderr


def test_paint_checks_its_outputs_and_prompt_before_painting(tmp_path):
    (tmp_path / "x.png").mkdir()
    _one_line(_cli(tmp_path, "paint", "tiny", "a cat", "-o", str(tmp_path / "x.png")), "-o", "is a directory")
    _one_line(_cli(tmp_path, "paint", "tiny", "a cat", "--export", str(tmp_path)), "--export must end in .html")
    _one_line(_cli(tmp_path, "paint", "tiny", "   "), "prompt is empty")


def test_a_model_that_is_not_there_is_named_in_one_line(tmp_path):
    run = tmp_path / "run"  # a run stopped before its final checkpoint
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"config": {}}))
    (run / "rollouts.jsonl").write_text("")
    _one_line(_cli(tmp_path, "paint", str(run), "a cat"), "has no checkpoint/")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelError, match="holds no model"):
        load_policy(str(empty))
    f = tmp_path / "model.bin"
    f.write_bytes(b"x")
    with pytest.raises(ModelError, match="is a file"):
        load_policy(str(f))


def test_a_hub_id_offline_fails_in_seconds(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_"))}
    env.update(OMP_NUM_THREADS="1", HF_ENDPOINT="http://127.0.0.1:9", HF_HOME=str(tmp_path / "hf"))
    r = subprocess.run([sys.executable, "-m", "aquarelle.cli", "paint", "nobody/no-such-model", "a cat"],
                       capture_output=True, text=True, env=env, timeout=60)
    _one_line(r, "nobody/no-such-model", "unreachable")


def test_demos_that_are_not_there_or_malformed_are_one_line(tmp_path):
    with pytest.raises(DataError, match="no such directory"):
        load_demos(tmp_path / "typo")  # used to fall back to the pool's demonstrations silently
    (tmp_path / "d").mkdir()
    with pytest.raises(DataError, match="no demonstration"):
        load_demos(tmp_path / "d")
    (tmp_path / "d" / "a.json").write_text("[1, 2]")
    with pytest.raises(DataError, match="a.json"):
        load_demos(tmp_path / "d")
    (tmp_path / "d" / "a.json").write_text(json.dumps({"prompt": "a cat", "program": {"x": 1}}))
    with pytest.raises(DataError, match="bad program"):
        load_demos(tmp_path / "d")


def test_sft_never_clobbers_out_and_replaces_a_warm_start_only_when_done(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "rollouts.jsonl").write_text('{"step": 1}\n')
    _one_line(_cli(tmp_path, "sft", "--out", str(run), "--model", "tiny"), "training run")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    _one_line(_cli(tmp_path, "sft", "--out", str(other), "--model", "tiny"), "not a warm start")
    _one_line(_cli(tmp_path, "sft", "--out", str(tmp_path / "w"), "--action-space", "fill,circle"),
              "no demonstration fits")  # the CPU default never loads: the check comes first
    assert not (tmp_path / "cache").exists()
    cfg = tmp_path / "c.json"
    # a whole sketch must fit one rollout, and the tiny model's bytes tokenizer spends a token a character
    cfg.write_text(json.dumps({"sft": {"max_length": 8192}, "generation": {"max_completion_length": 4096}}))
    out = tmp_path / "w"
    args = ["sft", "--model", "tiny", "--mode", "sketch", "--steps", "1", "--demos", str(DATA / "train_demos"),
            "--out", str(out), "--config", str(cfg)]
    r = _cli(tmp_path, *args)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads((out / "aquarelle.json").read_text())["steps"] == 1
    # refused before the model loads: --out must survive
    cfg.write_text(json.dumps({"sft": {"max_length": 64}, "generation": {"max_completion_length": 4096}}))
    _one_line(_cli(tmp_path, *args), "config key sft.max_length")
    assert (out / "model.safetensors").is_file() and not Path(str(out) + ".tmp").exists()


def test_a_max_length_no_demonstration_fits_is_refused_before_the_model_loads(tmp_path, monkeypatch):
    """The check needs token counts only, yet ran after the whole model had loaded (minutes on a CPU); the
    tokenizer alone (the real one, from the model's directory) answers it in seconds."""
    from aquarelle.train import sft
    from aquarelle.train.config import ConfigError, SFTSection, load_config
    from aquarelle.train.envglue import env_class
    from aquarelle.train.model import tiny_model

    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "model"
    pol = tiny_model()
    pol.model.save_pretrained(model)
    pol.tokenizer.save_pretrained(model)
    loads = []

    def loader(*args, **kw):
        loads.append(args)
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(sft, "load_policy", loader)
    cfg = tmp_path / "c.json"
    # room for the whole sketches (the bytes tokenizer spends a token a character): only max_length is wrong
    cfg.write_text(json.dumps({"sft": {"max_length": 64}, "generation": {"max_completion_length": 4096}}))
    demos = str(DATA / "train_demos")
    with pytest.raises(ConfigError, match=r"^config key sft\.max_length: .* longer than 64 tokens") as err:
        sft.sft_command("sketch", None, str(model), str(tmp_path / "w"), 1, demos, str(cfg))
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match=r"^config key sft\.max_length: "):  # the warm start `train` runs
        sft.ensure_warm_start(str(model), mode="tools", action_space="hf10", cfg=SFTSection(max_length=64),
                              env_cls=env_class("tools", "hf10", load_config(None)), demos_source=demos)
    assert loads == [] and not (tmp_path / "w").exists()


def test_a_warm_start_cache_entry_without_whole_weights_is_trained_again(tmp_path, monkeypatch):
    """An entry was judged cached by its config.json and aquarelle.json alone: one left without its weights, or with
    them cut short (a save killed part way), was handed to every later run, which failed to load it until someone
    deleted it by hand. Now it is trained again, with one line saying why."""
    from aquarelle.train import sft
    from aquarelle.train.config import SFTSection
    from aquarelle.train.model import missing_part

    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))
    # a whole sketch must fit one rollout, and the bytes tokenizer spends a token a character
    where = dict(mode="sketch", action_space="hf10", cfg=SFTSection(steps=1, max_length=8192), env_cls=None,
                 budget_tokens=4096)
    demos = str(DATA / "train_demos")
    out = sft.ensure_warm_start("tiny", demos_source=demos, log=lambda m: None, **where)
    weights = out / "model.safetensors"
    whole = weights.read_bytes()
    for damage, named in ((lambda: weights.write_bytes(whole[: len(whole) // 2]), "model.safetensors is unreadable"),
                          (weights.unlink, "no weights")):
        damage()
        assert sft.cached_warm_start("tiny", **where) is None
        lines: list[str] = []
        assert sft.ensure_warm_start("tiny", demos_source=demos, log=lines.append, **where) == out
        said = [m for m in lines if "incomplete" in m]
        assert len(said) == 1 and named in said[0] and "training it again" in said[0], lines
        assert missing_part(out) is None and load_policy(str(out)).model is not None
    lines = []
    assert sft.ensure_warm_start("tiny", demos_source=demos, log=lines.append, **where) == out
    assert lines == [f"warm start: using cached {out}"]


def test_a_converted_default_model_without_its_weights_is_converted_again(tmp_path, monkeypatch):
    """The CPU default's converted copy was judged by the same two files: one without weights was loaded (and failed)
    on every run instead of being converted again."""
    from aquarelle.train import model

    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))
    entry = model.cache_dir() / model.SMOLLM2_CACHE_NAME
    entry.mkdir(parents=True)
    for name in ("config.json", "aquarelle.json", "tokenizer_config.json"):
        (entry / name).write_text("{}")

    def converting():
        raise ModelError("converting it again")

    monkeypatch.setattr(model, "_smollm2_gguf_dir", converting)
    with pytest.raises(ModelError, match="converting it again"):
        model.smollm2_dir()


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("paintrun")
    run = tmp / "run"
    r = _cli(tmp, "train", "--model", "tiny", "--max-steps", "1", "--max-completion-length", "24", "--out", str(run),
             "--demos", str(DATA / "train_demos"), "--temperature", "0.7")
    assert r.returncode == 0, r.stderr[-2000:]
    (tmp / "train.stderr").write_text(r.stderr)
    return run


def test_train_samples_at_the_temperature_it_is_given(tiny_run):
    """--temperature sets generation.temperature, which the run records and eval samples at (1.0 by default)."""
    cfg = json.loads((tiny_run / "config.json").read_text())["config"]
    assert cfg["generation"]["temperature"] == 0.7


def test_demos_that_no_warm_start_reads_are_named_not_dropped(tiny_run):
    err = (tiny_run.parent / "train.stderr").read_text()
    assert "note: --demos" in err and "is not used: no warm start runs (tiny models are not warm-started here)" in err


def test_paint_uses_a_runs_own_config_unless_given_one(tiny_run, tmp_path):
    cfg = json.loads((tiny_run / "config.json").read_text())
    cfg["config"]["generation"]["max_completion_length"] = 8  # no room for a single turn: an empty transcript
    (tiny_run / "config.json").write_text(json.dumps(cfg))
    r = _cli(tmp_path, "paint", str(tiny_run), "a cat")
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["completion"] == ""
    other = tmp_path / "c.json"
    other.write_text(json.dumps({"generation": {"max_completion_length": 24}}))
    r = _cli(tmp_path, "paint", str(tiny_run), "a cat", "--config", str(other))
    assert r.returncode == 0 and json.loads(r.stdout)["completion"] != "", r.stderr[-2000:]


def test_paint_export_without_p5_fails_before_painting(tiny_run, tmp_path):
    env_nm = tmp_path / "nm"
    env_nm.mkdir()
    png = tmp_path / "p.png"
    env = dict(os.environ, OMP_NUM_THREADS="1", AQUARELLE_NODE_MODULES=str(env_nm))
    r = subprocess.run([sys.executable, "-m", "aquarelle.cli", "paint", str(tiny_run), "a cat", "-o", str(png),
                        "--export", str(tmp_path / "p.html")], capture_output=True, text=True, env=env, timeout=180,
                       cwd=tmp_path)
    _one_line(r, "AQUARELLE_NODE_MODULES", "p5")
    assert not png.exists()


@pytest.mark.parametrize("mode", ["tools", "sketch"])  # sketch mode scores its sketch on the server too
def test_paint_with_an_env_server_that_is_down_fails_at_once(tmp_path, mode):
    from serve_process import free_port

    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"env": {"urls": [f"http://127.0.0.1:{free_port()}"]}}))
    _one_line(_cli(tmp_path, "paint", "tiny", "a cat", "--mode", mode, "--config", str(cfg)), "does not answer")


@pytest.mark.parametrize("mode", ["tools", "sketch"])
def test_paint_with_an_env_server_that_scores_otherwise_fails_at_once(tmp_path, mode):
    """The server would score the painting with its own reward config (a reset sends only the weights): a run
    configured otherwise got another scorer's reward, silently. One line names the field and the fix."""
    from serve_process import StubServer

    server = StubServer()  # describes the embedded defaults
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"env": {"urls": [server.url]}, "reward": {"extra": {"render_size": 128}}}))
    try:
        r = _cli(tmp_path, "paint", "tiny", "a cat", "--mode", mode, "--config", str(cfg))
    finally:
        server.stop()
    _one_line(r, f"environment server {server.url} scores differently", "render_size: server 256, run 128",
              f"`aquarelle serve --config {cfg}`")


def test_paint_keeps_the_record_when_there_is_nothing_to_export(tiny_run, tmp_path):
    """`paint --export` of an episode without a program exited 2 with stdout empty: the minutes of painting and the
    code the command promises to keep were lost. The record is printed, then one line, exit 1."""
    short = tmp_path / "short.json"
    short.write_text(json.dumps({"generation": {"max_completion_length": 8}}))  # no room for a sketch: no program
    page = tmp_path / "p.html"
    r = _cli(tmp_path, "paint", str(tiny_run), "a cat", "--mode", "sketch", "--config", str(short), "--export", str(page))
    assert r.returncode == 1 and not page.exists()
    rec = json.loads(r.stdout)
    assert {"code", "errors", "seed", "completion"} <= set(rec)
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: --export: nothing written to {page}: the painting has no program"), r.stderr
