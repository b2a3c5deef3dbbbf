"""Presets, custom weights (config file or per episode) and the composite arithmetic."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from aquarelle.rewards.composite import RewardModel
from aquarelle.rewards.config import PRESETS, RewardConfig, RewardError, Weights, load_config, resolve_weights


def test_presets_are_the_published_mixes():
    assert PRESETS["judge-led"].as_dict() == {"gate": 0.05, "length": 0.05, "judge": 0.60, "preference": 0.30}
    assert PRESETS["hps-led"].as_dict() == {"gate": 0.05, "length": 0.05, "judge": 0.30, "preference": 0.60}
    assert PRESETS["hps-only"].as_dict() == {"gate": 0.05, "length": 0.05, "judge": 0.00, "preference": 0.90}
    assert resolve_weights() == PRESETS["judge-led"]


def test_custom_weights_override_a_preset():
    w = resolve_weights("hps-led", {"judge": 0.5})
    assert w.as_dict() == {"gate": 0.05, "length": 0.05, "judge": 0.5, "preference": 0.60}
    with pytest.raises(RewardError, match="unknown reward preset 'nope'"):
        resolve_weights("nope")
    with pytest.raises(RewardError, match="unknown weight term"):
        resolve_weights(weights={"beauty": 1})
    with pytest.raises(RewardError, match="bad weight judge"):
        resolve_weights(weights={"judge": -1})
    with pytest.raises(RewardError) as e:
        resolve_weights(weights={"gate": 0, "length": 0, "judge": 0, "preference": 0})
    assert str(e.value) == "bad weights: weights must not all be zero"


def test_config_file_json_and_yaml(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("rewards:\n  preset: hps-only\n  weights: {length: 0.1}\n  judge_backend: local\n")
    cfg = load_config(p)
    assert cfg.weights_resolved().as_dict() == {"gate": 0.05, "length": 0.1, "judge": 0.0, "preference": 0.9}
    q = tmp_path / "r.json"
    q.write_text(json.dumps({"judge_backend": "gpt"}))
    with pytest.raises(RewardError, match="judge_backend"):
        load_config(q)
    q.write_text("{not json")
    with pytest.raises(RewardError, match="not valid json"):
        load_config(q)


def test_config_file_may_be_the_training_config(tmp_path):
    """The documented training config (docs/config.md) works as --config: its reward: section, read as training
    reads it (preset, weights, extra)."""
    from aquarelle.train.config import load_config as load_training_config

    p = tmp_path / "train.yaml"
    p.write_text("mode: tools\nmodel: {name: tiny}\nreward:\n  preset: hps-only\n  weights: {length: 0.2}\n"
                 "  judge_backend: local\n  extra: {judge_retries: 5}\n")
    cfg = load_config(p)
    assert cfg.weights_resolved().as_dict() == {"gate": 0.05, "length": 0.2, "judge": 0.0, "preference": 0.9}
    assert cfg.judge_retries == 5 and cfg.judge_backend == "local"
    assert cfg.model_dump(exclude={"preset", "weights"}) == RewardConfig(
        **load_training_config(p).reward.reward_config()).model_dump(exclude={"preset", "weights"})
    assert load_config(p, preset="judge-led").weights_resolved().judge == pytest.approx(0.6)  # flags still win
    from aquarelle.cli import app

    r = CliRunner().invoke(app, ["scorers", "check", "--config", str(p)])
    assert r.exit_code == 0 and r.output.splitlines() == [  # hps-only weighs the judge 0: not asked
        "skip judge=local: weight 0 in the configured weights, never asked", "ok: preference=local answers"], r.output
    p.write_text("mode: tools\nreward:\n  preset: best\n")
    with pytest.raises(RewardError, match="reward.preset"):
        load_config(p)


def test_a_runs_config_json_is_a_reward_config_file(tmp_path):
    """A run's RUN/config.json (the training config under "config") reads as that config's reward: section, so an
    env server for `paint`/`eval` of a run starts with `aquarelle serve --config RUN/config.json`."""
    from aquarelle.train.config import config_from

    train = config_from({"reward": {"preset": "hps-only", "extra": {"render_size": 128}}})
    p = tmp_path / "config.json"
    p.write_text(json.dumps({"config": train.model_dump(), "argv": ["train"], "versions": {}}))
    assert load_config(p) == train.reward.scorer_config()
    assert load_config(p).render_size == 128 and load_config(p).preset == "hps-only"
    p.write_text(json.dumps({"config": {"reward": {"preset": "best"}}}))
    with pytest.raises(RewardError, match="reward.preset"):
        load_config(p)


def test_the_scoring_description_says_what_scores_and_never_the_key(tmp_path, monkeypatch):
    """What an env server serves at GET /scoring (docs/CONTRACTS.md): resolved weights and judge model; the API
    key never, nor credentials in a URL."""
    from aquarelle.rewards.config import scoring_description, scoring_differences
    from aquarelle.rewards.pool import pool_digest

    monkeypatch.setenv("MY_JUDGE_KEY", "sekrit-key")
    monkeypatch.setenv("AQUARELLE_JUDGE_MODEL", "vlm-from-env")
    cfg = RewardConfig(preset="hps-led", weights={"length": 0.1}, judge_backend="openai",
                       judge_url="http://user:pw@judge:8000/v1", judge_api_key_env="MY_JUDGE_KEY")
    d = scoring_description(cfg)
    assert d == {"preset": "hps-led", "weights": {"gate": 0.05, "length": 0.1, "judge": 0.3, "preference": 0.6},
                 "judge_backend": "openai", "judge_model": "vlm-from-env", "judge_url": "http://judge:8000/v1",
                 "judge_image_size": 512, "preference_backend": "local", "preference_url": None,
                 "references": {"love": 2, "okay": 2}, "reference_split": "all", "pool": pool_digest(),
                 "render_size": 256}
    assert len(d["pool"]) == 16
    assert "sekrit" not in json.dumps(d) and "pw" not in json.dumps(d)
    # compared: what decides the run's scores; not the weights (each reset sends them) nor URLs
    assert scoring_differences({**d, "preset": "judge-led", "judge_url": "http://10.0.0.5:8000/v1"}, cfg) == []
    assert scoring_differences({**d, "judge_image_size": 256, "reference_split": "design"}, cfg) == [
        'reference_split: server "design", run "all"', "judge_image_size: server 256, run 512"]
    # a local scorer has no model or service: /scoring named the default VLM beside the local judge
    monkeypatch.setenv("AQUARELLE_HPS_URL", "http://hps:9000")
    local = scoring_description(RewardConfig(judge_url="http://judge:8000/v1"))
    assert local["judge_backend"] == "local" and local["judge_model"] is None and local["judge_url"] is None
    assert local["preference_backend"] == "local" and local["preference_url"] is None
    assert scoring_description(RewardConfig(preference_backend="hpsv3"))["preference_url"] == "http://hps:9000"


@pytest.mark.parametrize("url, shown", [
    ("http://judge:8000/v1?api_key=sk-SECRET", "http://judge:8000/v1"),
    ("http://judge:8000/v1?x=1&token=sk-SECRET", "http://judge:8000/v1"),
    ("https://judge/v1#token=sk-SECRET", "https://judge/v1"),
    ("http://judge/v1;key=sk-SECRET", "http://judge/v1"),
    ("http://judge/v1?key=a@sk-SECRET", "http://judge/v1"),
    ("http://user:sk-SECRET@[::1]:8000/v1", "http://[::1]:8000/v1"),
    ("user:sk-SECRET@judge:8000/v1", None),  # no scheme: urlsplit reads it all as scheme "user" and a path
    ("//user:sk-SECRET@judge/v1", None),
    ("http://[user:sk-SECRET@judge/v1", None),  # urlsplit raises "Invalid IPv6 URL": the server did not start
    ("http://user:sk-SECRET@judge:99999/v1", None),  # a port out of range raises too
])
def test_the_scoring_description_shows_no_credentials_of_any_url_shape(url, shown):
    """GET /scoring is served to whoever asks: a key in a URL's query, fragment or params, or in a URL that
    does not parse, was served as given (or raised out of the description, before the server started)."""
    from aquarelle.rewards.config import URL_WITHHELD, scoring_description

    d = scoring_description(RewardConfig(judge_backend="openai", judge_url=url, preference_backend="hpsv3",
                                         preference_url=url))
    assert d["judge_url"] == d["preference_url"] == (URL_WITHHELD if shown is None else shown)
    assert "SECRET" not in json.dumps(d)


def test_a_config_file_too_big_or_past_memory_is_one_line(tmp_path, monkeypatch):
    """`serve --config` / AQUARELLE_CONFIG / `train --config`: a config is a few KiB. A bigger file was parsed
    whatever its size (200 MB of YAML comments: 122 s, a 35 MB list: 159 s and 2.4 GB) and one past memory
    raised MemoryError, whose empty message then raised IndexError: a traceback, not one line."""
    import yaml

    from aquarelle.configfile import MAX_CONFIG_BYTES
    from aquarelle.train.config import ConfigError
    from aquarelle.train.config import load_config as load_train_config

    big = tmp_path / "big.yaml"
    big.write_text("preset: hps-only\n" + "# padding\n" * (MAX_CONFIG_BYTES // 10 + 1))
    with pytest.raises(RewardError, match=r"^reward config .*big.yaml is bigger than 1024 KiB: a config is a few KiB$"):
        load_config(big)
    with pytest.raises(ConfigError, match=r"^config file .*big.yaml is bigger than 1024 KiB"):
        load_train_config(big)
    ok = tmp_path / "ok.yaml"
    ok.write_text("preset: hps-only\n")
    assert load_config(ok).preset == "hps-only"

    def no_memory(text, Loader=None):
        raise MemoryError()

    monkeypatch.setattr(yaml, "load", no_memory)  # the config reader's safe loader
    with pytest.raises(RewardError, match=r"^reward config .*ok.yaml is not valid yaml: MemoryError$"):
        load_config(ok)


@pytest.mark.parametrize("text, where", [("1: 2\n", "1"), ("rewards: {1: 2}\n", "1"), ("~: hps-only\n", "None"),
                                         ("? [a, b]\n: 1\n", None)])
def test_a_config_key_that_is_not_a_string_is_one_line(tmp_path, text, where):
    """YAML keys may be numbers or null: a flat reward config with one was `TypeError: keywords must be strings`
    out of `RewardConfig(**data)`, a traceback from `serve --config` (a training config's was already one line)."""
    from aquarelle.cli import app

    p = tmp_path / "r.yaml"
    p.write_text(text)
    r = CliRunner().invoke(app, ["serve", "--config", str(p)])
    assert r.exit_code == 2 and "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1, r.output
    if where is not None:
        assert r.output.strip() == f"bad reward config field {where}: Keys should be strings"
    else:  # a list as a key: PyYAML cannot build the mapping
        assert r.output.startswith(f"reward config {p} is not valid yaml: "), r.output


@pytest.mark.parametrize("field", ["render_size", "judge_image_size"])
def test_a_scoring_image_size_past_2048_is_refused_at_load(tmp_path, field):
    """Both sizes resample the painting up as well as down: `render_size: 100000` made every score ask for a
    30 GB image (reward None "MemoryError" under a 3 GB limit; without one, a worker of many GB), found only once
    a server scored. The same bound as a reset's image_size."""
    p = tmp_path / "r.yaml"
    p.write_text(f"{field}: 100000\n")
    with pytest.raises(RewardError, match=rf"^bad reward config field {field}: Input should be less than or equal "
                                          "to 2048$"):
        load_config(p)
    p.write_text(f"{field}: 2048\n")
    assert getattr(load_config(p), field) == 2048


@pytest.mark.parametrize("body, where", [({"judge_model": "\ud800"}, "judge_model"),
                                         ({"judge_backend": "openai", "judge_url": "http://h\udfffst/v1"}, "judge_url"),
                                         ({"reward": {"extra": {"judge_model": "x\ud800"}}}, "reward.extra.judge_model"),
                                         ({"references": {"\ud800": 1}}, "a key in references")])
def test_config_text_that_is_not_unicode_is_one_line(tmp_path, body, where):
    """JSON may escape a lone surrogate ("\\ud800"): such a config loaded, and a server started with it answered
    every GET /scoring with a bare 500 (so every run refused it, unexplained)."""
    p = tmp_path / "r.json"
    p.write_text(json.dumps(body))
    with pytest.raises(RewardError, match=rf"^reward config {p}: {where} is not valid Unicode text \(a lone UTF-16 "
                                          r"surrogate\)$"):
        load_config(p)


def test_a_config_path_that_is_not_a_file_says_what_it_is(tmp_path):
    """`serve --config DIR` or `/dev/zero` said "does not exist", which it does."""
    from aquarelle.cli import app

    for path, said in ((tmp_path, "is a directory"), (Path("/dev/zero"), "is not a regular file"),
                       (tmp_path / "nope.yaml", "does not exist")):
        r = CliRunner().invoke(app, ["serve", "--config", str(path)])
        assert r.exit_code == 2 and r.output.strip().startswith(f"reward config {path} {said}"), r.output
        assert len(r.output.strip().splitlines()) == 1


def _laughs(levels: int = 9) -> str:
    """A billion-laughs YAML value: ``levels`` nested lists of 9 aliases each, 9**levels strings, ~400 bytes."""
    names = "abcdefghijklmnopqrstuvwxyz"
    expr = "&a [" + ", ".join(["lol"] * 9) + "]"
    for k in range(1, levels):
        expr = f"&{names[k]} [{expr}" + f", *{names[k - 1]}" * 8 + "]"
    return expr


def test_a_yaml_bomb_is_one_line_at_once(tmp_path):
    """A 400-byte billion-laughs under `reward.extra` (a training config given to `serve --config`) held the
    loader 30 s+ and 3 GB+ (RewardSection.model_dump wrote the 387 million strings out) before anything refused it;
    anywhere else in a config, whatever writes it out later (a run's config.json) would."""
    from aquarelle.configfile import MAX_CONFIG_VALUES
    from aquarelle.train.config import ConfigError
    from aquarelle.train.config import load_config as load_train_config

    p = tmp_path / "bomb.yaml"
    p.write_text("mode: tools\nreward:\n  extra: {foo: " + _laughs() + "}\n")
    assert p.stat().st_size < 500
    said = rf"holds more than {MAX_CONFIG_VALUES} values once YAML aliases are expanded"
    with pytest.raises(RewardError, match=said):
        load_config(p)
    p.write_text("optim:\n  extra_grpo_args: {report_to: " + _laughs() + "}\n")
    with pytest.raises(ConfigError, match=said):
        load_train_config(p)
    p.write_text("mode: tools\nreward:\n  extra: {foo: &a [1, *a]}\n")
    with pytest.raises(RewardError, match="refers to itself"):
        load_config(p)
    p.write_text("mode: tools\nreward: &r {preset: hps-only}\nenv: {hide_tools: &h [shape]}\n")  # anchors are fine
    assert load_config(p).preset == "hps-only"


@pytest.mark.parametrize("name", ["r.yaml", "r.json"])
def test_config_file_that_is_not_utf8_is_one_line(tmp_path, name):
    from aquarelle.cli import app

    p = tmp_path / name
    p.write_bytes(b"\xcc\xff preset: hps-only\n")
    for args in (["scorers", "check"], ["pool", "validate"], ["score", str(p)]):
        r = CliRunner().invoke(app, [*args, "--config", str(p)])
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        assert r.output.strip() == f"reward config {p} is not valid UTF-8: " \
            "'utf-8' codec can't decode byte 0xcc in position 0: invalid continuation byte"


def test_score_json_has_a_line_for_every_input(tmp_path):
    """A consumer matching JSON lines to inputs must not lose the missing file or the directory."""
    from aquarelle.cli import app

    missing, folder = tmp_path / "missing.js", tmp_path / "adir.js"
    folder.mkdir()
    r = CliRunner().invoke(app, ["score", "--json", str(missing), str(folder)])
    assert r.exit_code == 1
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(x["sketch"], x["reward"], x["error"]) for x in lines] == [
        (str(missing), None, "no such file"), (str(folder), None, "is a directory")]
    assert all(set(x) == {"sketch", "reward", "breakdown", "weights", "gate_reasons", "error"} for x in lines)


def test_composite_arithmetic_and_per_episode_weights(tmp_path):
    from test_rewards_openai import canvas, write_pool

    root = write_pool(tmp_path / "pool", {"l1": ("love", 0.1), "l2": ("love", 0.9), "o1": ("okay", 0.2),
                                          "o2": ("okay", 0.8), "r1": ("reject", 0.0)})
    model = RewardModel(RewardConfig(pool_dir=str(root)))
    img = canvas(0.5)
    r = model.score(image=img, program=None, mode="tools", n_calls=210)
    b = r.breakdown
    assert set(b) == {"gate", "length", "judge", "preference"} and b["gate"] == 1.0
    assert 0 <= b["judge"] <= 1 and 0 < b["preference"] < 1
    assert b["length"] == pytest.approx((60 + 7 * 210 - 150) / 2850)
    expect = 0.05 + 0.05 * b["length"] + 0.60 * b["judge"] + 0.30 * b["preference"]
    assert r.reward == pytest.approx(expect)
    # the same model, other weights for this episode: no restart, no environment variables
    w = Weights(gate=0.0, length=0.0, judge=1.0, preference=0.0)
    r2 = model.score(image=img, program=None, mode="tools", n_calls=210, weights=w)
    assert r2.reward == pytest.approx(b["judge"]) and r2.breakdown["preference"] is None
    assert r2.weights == w.as_dict()
    # same group seed, same references; the reason paragraph names them
    assert r.references == model.score(image=img, program=None, mode="tools", n_calls=5).references
    assert all(f"vs {rid}" in r.critique for rid in r.references)


def test_scorers_check_cli(tmp_path):
    from aquarelle.cli import app

    runner = CliRunner()
    ok = runner.invoke(app, ["scorers", "check"])
    assert ok.exit_code == 0, ok.output
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"judge_backend": "openai", "judge_url": "http://127.0.0.1:9/v1", "judge_retries": 0,
                               "preference_backend": "hpsv3", "preference_url": "http://127.0.0.1:9",
                               "judge_timeout_s": 2}))
    bad = runner.invoke(app, ["scorers", "check", "--config", str(cfg)])
    assert bad.exit_code == 1
    assert "judge (openai" in bad.output and "preference (hpsv3" in bad.output
    assert "Traceback" not in bad.output


def test_scorers_check_asks_only_the_backends_the_weights_count(tmp_path, monkeypatch):
    """`reward: {preset: hps-only, judge_backend: openai}` without a judge_url: score, serve and train take it (the
    judge weighs 0, never asked), but scorers check built and checked both backends and failed "the openai judge
    needs judge_url". A backend weighed 0 is skipped, and the output says so."""
    from aquarelle.cli import app

    monkeypatch.delenv("AQUARELLE_JUDGE_URL", raising=False)
    monkeypatch.delenv("AQUARELLE_HPS_URL", raising=False)
    cfg = tmp_path / "train.yaml"
    cfg.write_text("reward:\n  preset: hps-only\n  judge_backend: openai\n")
    r = CliRunner().invoke(app, ["scorers", "check", "--config", str(cfg)])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["skip judge=openai: weight 0 in the configured weights, never asked",
                                     "ok: preference=local answers"]
    cfg.write_text("reward:\n  preset: judge-led\n  weights: {preference: 0}\n  preference_backend: hpsv3\n")
    r = CliRunner().invoke(app, ["scorers", "check", "--config", str(cfg)])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["skip preference=hpsv3: weight 0 in the configured weights, never asked",
                                     "ok: judge=local answers"]
    cfg.write_text("reward:\n  weights: {judge: 0, preference: 0}\n  judge_backend: openai\n"
                   "  preference_backend: hpsv3\n")
    r = CliRunner().invoke(app, ["scorers", "check", "--config", str(cfg)])
    assert r.exit_code == 0 and r.output.splitlines()[-1] == "ok: no scorer is weighed", r.output
    cfg.write_text("reward:\n  preset: hps-led\n  judge_backend: openai\n")  # weighed: checked as before
    r = CliRunner().invoke(app, ["scorers", "check", "--config", str(cfg)])
    assert r.exit_code == 1 and "FAIL judge: the openai judge needs judge_url" in r.output, r.output
    assert "skip" not in r.output
    assert RewardModel(RewardConfig(preset="hps-only")).weighed_terms() == ["preference"]


def test_every_reward_config_field_is_documented():
    """The rewards README lists every RewardConfig field a config file may set (as docs/config.md lists keys)."""
    doc = (Path(__file__).resolve().parents[1] / "src" / "aquarelle" / "rewards" / "README.md").read_text()
    missing = [k for k in RewardConfig.model_fields if f"`{k}`" not in doc and f"`{k}:" not in doc]
    assert not missing, f"src/aquarelle/rewards/README.md does not name: {missing}"


def test_reward_bench_answers_help_without_running():
    """README runs benchmarks as `python -m bench.NAME`: --help must not rerun one over bench/results/."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    results = root / "bench" / "results" / "rewards.json"
    before = results.stat().st_mtime_ns
    for arg, code in (("--help", 0), ("--bogus", 2)):
        r = subprocess.run([sys.executable, "-m", "bench.reward_bench", arg], cwd=root, capture_output=True,
                           text=True, timeout=60, env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert r.returncode == code and "Traceback" not in r.stderr, r.stderr
    assert results.stat().st_mtime_ns == before


def test_local_scorers_see_the_painting_at_render_size(tmp_path):
    """A painting that is a copy of every reference ties them, at whatever size the caller rendered it."""
    from aquarelle.rewards.imageio import resize, save_png
    from aquarelle.rewards.pool import Pool

    rng = np.random.default_rng(3)
    img = np.full((600, 600, 3), 248, np.uint8)
    for _ in range(40):  # hard-edged strokes: what resampling changes most
        y, x, h, w = rng.integers(0, 560, 4) % np.array([560, 560, 40, 300]) + np.array([0, 0, 3, 10])
        img[y:y + h, x:x + w] = rng.integers(20, 230, 3)
    (tmp_path / "sketches").mkdir()
    (tmp_path / "images").mkdir()
    ents = [{"id": i, "subject": "abstract", "tier": t, "why": "test", "hf10": True, "split": "design"}
            for i, t in (("l1", "love"), ("l2", "love"), ("o1", "okay"), ("o2", "okay"))]
    (tmp_path / "pool.json").write_text(json.dumps({"paintings": ents}))
    for e in ents:
        (tmp_path / "sketches" / f"{e['id']}.js").write_text(f"// {e['id']}\n")
    pool = Pool(tmp_path)
    for e in pool.entries:
        save_png(img, pool.image_path(e))
        pool.image_path(e).with_suffix(".json").write_text(json.dumps({"key": pool._key(e, "native")}))
    model = RewardModel(RewardConfig(pool_dir=str(tmp_path)))
    native = model.score(image=img, program=None, mode="tools", n_calls=210)
    small = model.score(image=resize(img, 256), program=None, mode="tools", n_calls=210)
    assert native.breakdown["judge"] == 0.5
    assert native.breakdown == small.breakdown and native.reward == small.reward


def test_infinite_weights_are_refused():
    """An inf weight passed ge=0, so every reward was inf (or NaN where its term was 0)."""
    for bad in (float("inf"), float("nan")):
        with pytest.raises(RewardError, match="bad weight judge"):
            resolve_weights(weights={"judge": bad})
        with pytest.raises(RewardError, match="bad reward config"):
            load_config(None, weights={"judge": bad})


def test_weights_so_big_that_a_reward_overflows_are_refused():
    """Finite weights passed: an env reset with {gate: 1e308, preference: 1e308} scored a pool painting inf
    (gate 1 + preference 0.84: 1.84e308), which the observation's JSON sends as null, a None reward without a
    reason; rewards past ~1e154 also overflow GRPO's group std. Weights are relative: at most 1e6 each."""
    from aquarelle.env import WatercolourEnvironment
    from aquarelle.env.environment import ResetError
    from aquarelle.rewards.config import MAX_WEIGHT

    with pytest.raises(RewardError, match=r"^bad weight gate: Input should be less than or equal to 1000000$"):
        resolve_weights(weights={"gate": 1e308, "preference": 1e308})
    with pytest.raises(RewardError, match="bad reward config: bad weight judge"):
        load_config(None, weights={"judge": 1e7})
    with pytest.raises(ResetError, match=r"^reset: bad weight preference: Input should be less than or equal to "):
        WatercolourEnvironment().reset(weights={"preference": 1e300})
    w = resolve_weights(weights={t: MAX_WEIGHT for t in ("gate", "length", "judge", "preference")})
    assert math.isfinite(sum(w.as_dict().values()) ** 2)  # the largest reward, squared as a std squares it


@pytest.mark.parametrize("bad, got", [("1", "str '1'"), (True, "bool True"), (None, "NoneType None")])
def test_a_weight_must_be_a_number_not_a_string_or_a_bool(tmp_path, bad, got):
    """pydantic's lax mode read {"judge": "1"} and {"judge": true} as weight 1.0: in a reset (WebSocket or HTTP), a
    reward config and a training config's reward.weights alike. Each names the term and what it got."""
    import json

    from aquarelle.env import WatercolourEnvironment
    from aquarelle.env.environment import ResetError
    from aquarelle.train.config import ConfigError, config_from

    with pytest.raises(RewardError, match=f"^bad weight judge: must be a number \\(int or float\\), got {got}$"):
        resolve_weights(weights={"judge": bad})
    with pytest.raises(ResetError, match=f"^reset: bad weight judge: must be a number .*, got {got}$"):
        WatercolourEnvironment().reset(weights={"judge": bad})
    p = tmp_path / "r.json"
    p.write_text(json.dumps({"weights": {"judge": bad}}))
    with pytest.raises(RewardError, match=f"^bad reward config field weights.judge: must be a number .*, got {got}$"):
        load_config(p)
    with pytest.raises(ConfigError, match=f"^config key reward.weights.judge: must be a number .*, got {got}$"):
        config_from({"reward": {"weights": {"judge": bad}}})


@pytest.mark.parametrize("text, where, got", [
    ("render_size: true", "render_size", "must be an integer, got bool True"),  # was 1: "greater than or equal to 32"
    ("judge_retries: '3'", "judge_retries", "must be an integer, got str '3'"),
    ("judge_timeout_s: yes", "judge_timeout_s", "must be a number \\(int or float\\), got bool True"),
    ("references: {love: '1'}", "references.love", "must be an integer, got str '1'"),
    ("preset: ''", "preset", "unknown reward preset '' \\(known: judge-led, hps-led, hps-only\\)"),  # was judge-led
])
def test_number_fields_and_the_preset_of_a_reward_config_are_not_coerced(tmp_path, text, where, got):
    p = tmp_path / "r.yaml"
    p.write_text(text + "\n")
    with pytest.raises(RewardError, match=f"^bad reward config field {where}: {got}$"):
        load_config(p)


def test_yaml_numbers_in_every_spelling_still_load(tmp_path):
    """YAML 1.1 (PyYAML) reads 1e-3 and 1.0e3 as strings, which number fields now refuse: the config reader reads
    them as the numbers YAML 1.2 says they are, so a config that wrote its numbers so still loads."""
    from aquarelle.train.config import load_config as load_train

    p = tmp_path / "r.yaml"
    p.write_text("weights: {judge: 1e-3, gate: 2.5E+1, preference: 0}\njudge_timeout_s: 1.0e3\njudge_retries: 3\n"
                 "judge_backoff_s: 0.5\nreferences: {love: 1, okay: 0}\nrender_size: 128\n")
    cfg = load_config(p)
    assert cfg.weights == {"judge": 0.001, "gate": 25.0, "preference": 0.0}
    assert (cfg.judge_timeout_s, cfg.judge_retries, cfg.render_size) == (1000.0, 3, 128)
    t = tmp_path / "train.yaml"
    t.write_text("optim: {learning_rate: 1e-5}\nsft: {learning_rate: 5e-4}\nreward: {weights: {judge: 1e-1}}\n")
    tc = load_train(t)
    assert (tc.optim.learning_rate, tc.sft.learning_rate, tc.reward.weights) == (1e-5, 5e-4, {"judge": 0.1})


def test_a_judge_without_references_is_refused_at_load():
    """love 0 and okay 0 with a judge weight made every reward None ('no references') only once scoring ran."""
    with pytest.raises(RewardError, match="the judge .* needs at least one reference painting"):
        load_config(None, references={"love": 0, "okay": 0})
    cfg = load_config(None, preset="hps-only", references={"love": 0, "okay": 0})  # no judge: nothing to compare
    assert cfg.references.love == cfg.references.okay == 0


def _score_with_config(tmp_path, config_text: str):
    """``aquarelle score --json --config`` of a one-line sketch with a reward config of ``config_text``: the file and
    the CLI's result."""
    from aquarelle.cli import app

    cfg = tmp_path / "r.yaml"
    cfg.write_text(config_text)
    sketch = tmp_path / "s.js"
    sketch.write_text("function setup() {}\n")
    return cfg, CliRunner().invoke(app, ["score", str(sketch), "--json", "--config", str(cfg)])


def test_score_with_a_weighed_service_that_has_no_url_is_one_line(tmp_path, monkeypatch):
    """score --config with an openai judge and no URL printed reward None for every sketch (exit 1); serve and
    train refuse the same config in one line."""
    monkeypatch.delenv("AQUARELLE_JUDGE_URL", raising=False)
    cfg, r = _score_with_config(tmp_path, "judge_backend: openai\npreset: judge-led\n")
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert r.output.strip() == f"reward config {cfg}: judge_url: the openai judge needs a URL (or AQUARELLE_JUDGE_URL)"


@pytest.mark.parametrize("url, shown", [("judge:8000/v1", "'judge:8000/v1'"), ("localhost:8000", "'localhost:8000'"),
                                        ("ftp://judge/v1", "'ftp://judge/v1'"), ("http://", "'http://'"),
                                        ("http://judge:port/v1", "'http://judge:port/v1'"),
                                        (" http://judge/v1", "' http://judge/v1'"),
                                        ("user:sk-key@judge/v1?api_key=sk-2", "'...@judge/v1'")])
def test_a_service_url_that_is_not_http_with_a_host_is_refused(tmp_path, monkeypatch, url, shown):
    """A judge_url without a scheme loaded, and every judged reward was then None ("judge unreachable ..."):
    score, serve and train refuse it where they refuse a missing URL, naming the field (never a key it holds)."""
    from aquarelle.rewards.config import missing_service_url

    monkeypatch.delenv("AQUARELLE_JUDGE_URL", raising=False)
    monkeypatch.delenv("AQUARELLE_HPS_URL", raising=False)
    why = f"{shown} is not an http(s) URL with a host: give one like "
    assert missing_service_url(RewardConfig(judge_backend="openai", judge_url=url)) == (
        "judge_url", why + "http://judge:8000/v1")
    assert missing_service_url(RewardConfig(preference_backend="hpsv3", preference_url=url)) == (
        "preference_url", why + "http://hps:8765")
    assert missing_service_url(RewardConfig(preference_backend="hpsv3", preference_url=url, preset="judge-led",
                                            weights={"preference": 0})) is None  # weighs 0: never asked
    monkeypatch.setenv("AQUARELLE_HPS_URL", url)
    assert missing_service_url(RewardConfig(preference_backend="hpsv3")) == (
        "preference_url", f"{shown} (from AQUARELLE_HPS_URL) is not an http(s) URL with a host: give one like "
                          "http://hps:8765")
    monkeypatch.setenv("AQUARELLE_JUDGE_URL", url)
    cfg, r = _score_with_config(tmp_path, "judge_backend: openai\n")
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert r.output.strip() == (f"reward config {cfg}: judge_url: {shown} (from AQUARELLE_JUDGE_URL) is not an "
                                "http(s) URL with a host: give one like http://judge:8000/v1")
    assert "sk-" not in r.output


def test_http_service_urls_pass():
    from aquarelle.rewards.config import missing_service_url

    for url in ("http://judge:8000/v1", "https://api.example.com/v1", "http://[::1]:8000/v1", "http://127.0.0.1:9"):
        assert missing_service_url(RewardConfig(judge_backend="openai", judge_url=url, preference_backend="hpsv3",
                                                preference_url=url)) is None


def test_score_reads_inputs_as_check_and_render_do_and_scores_program_json(tmp_path):
    """A binary file scored 0 with exit 0 where check and render say it cannot be read; a program JSON, which
    render and check take, was run as JavaScript (a SyntaxError, reward 0)."""
    from aquarelle.brush import Program
    from aquarelle.cli import app

    binary = tmp_path / "garbage.js"
    binary.write_bytes(b"\x00\x01\x90\xff binary")
    prog = tmp_path / "prog.json"
    prog.write_text(Program.from_calls([("fill", ["#ff0000", 90]), ("circle", [300, 300, 100])]).dumps())
    r = CliRunner().invoke(app, ["score", "--json", str(binary), str(prog), "--config", str(_judge_free(tmp_path))])
    assert r.exit_code == 1, r.output
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert rows[0]["reward"] is None and rows[0]["error"].startswith("cannot read: not UTF-8 text")
    assert rows[1]["breakdown"]["gate"] == 1.0 and rows[1]["reward"] > 0 and "error" not in rows[1]
    r = CliRunner().invoke(app, ["score", "--json", "--action-space", "hf10", str(prog), "--config",
                                 str(_judge_free(tmp_path))])
    assert r.exit_code == 0 and json.loads(r.stdout)["breakdown"]["gate"] == 1.0  # fill and circle are hf10


def _judge_free(tmp_path: Path) -> Path:
    p = tmp_path / "hps-only.json"
    p.write_text(json.dumps({"preset": "hps-only"}))
    return p


@pytest.mark.parametrize("key", ["judge_timeout_s", "judge_backoff_s", "preference_timeout_s"])
def test_a_scorer_wait_must_be_finite_and_at_most_a_day(tmp_path, key):
    """judge_timeout_s 1e309 (inf) loaded, and every judged episode then failed with "OverflowError: timestamp out
    of range"; so did any wait past ~1e9 s."""
    from aquarelle.train.config import ConfigError
    from aquarelle.train.config import load_config as load_train_config

    p = tmp_path / "r.json"
    p.write_text(f'{{"{key}": 1e309}}')
    with pytest.raises(RewardError, match=rf"^bad reward config field {key}: Input should be a finite number$"):
        load_config(p)
    p.write_text(f'{{"{key}": 1e12}}')
    with pytest.raises(RewardError, match=rf"^bad reward config field {key}: Input should be less than or equal"):
        load_config(p)
    p.write_text(f'{{"reward": {{"extra": {{"{key}": 1e309}}}}}}')
    with pytest.raises(ConfigError, match=rf"^config key reward.extra.{key}: Input should be a finite number$"):
        load_train_config(p)


def test_serve_and_score_refuse_a_malformed_pool_at_start(tmp_path):
    """A config pointing pool_dir at a malformed pool.json started a server that reported healthy, though every
    judged episode would fail: it is the line score gave per sketch, once, before the server starts."""
    from aquarelle.cli import app

    pool = tmp_path / "badpool"
    pool.mkdir()
    (pool / "pool.json").write_text("{garbage")
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"reward": {"extra": {"pool_dir": str(pool)}}}))
    said = f"reward config {cfg}: pool_dir: {pool / 'pool.json'} is malformed: Expecting property name enclosed in " \
           "double quotes: line 1 column 2 (char 1)"
    for args in (["serve", "--port", "9", "--config", str(cfg)], ["score", str(tmp_path / "x.js"), "--config", str(cfg)]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2 and r.output.strip() == said, r.output
    (pool / "pool.json").write_text('{"paintings": []}')  # well-formed, but without the judge's references
    r = CliRunner().invoke(app, ["serve", "--port", "9", "--config", str(cfg)])
    assert r.exit_code == 2 and "the pool has 0 love painting(s)" in r.output and len(r.output.splitlines()) == 1


def test_score_refuses_what_is_no_painting_or_no_count_in_one_line():
    """A float image in [0, 1] was read as nearly black and scored (the gate passed: 0.05), a file name failed
    inside ``coverage``, a negative call count and a text seed went through."""
    import numpy as np

    from aquarelle.rewards.composite import RewardModel

    model = RewardModel(RewardConfig(preset="hps-only", preference_backend="local"))
    ok = np.full((64, 64, 3), 200, np.uint8)
    for kw, why in ((dict(image=np.random.default_rng(0).random((64, 64, 3))), "got float64 array of shape (64, 64, 3)"),
                    (dict(image="x.png"), "got str"), (dict(image=ok[:, :, 0]), "got uint8 array of shape (64, 64)"),
                    (dict(image=ok, n_calls=-5), "n_calls must be a whole number >= 0, got -5"),
                    (dict(image=ok, group_seed="a"), "group_seed must be an integer, got 'a'"),
                    (dict(image=ok, coverage="half"), "coverage must be a number")):
        with pytest.raises(RewardError, match=re.escape(why)):
            model.score(mode="tools", **kw)
    assert model.score(image=ok, mode="tools", n_calls=20, coverage=float("nan")).breakdown["gate"] is not None


def test_score_seed_reproduces_an_environment_episodes_score(tmp_path):
    """An unseeded sketch scored in the environment under reset seed 3 could not be scored again from the CLI:
    `score` always ran it under seed 0 (another painting) and --group-seed only picked the references."""
    from aquarelle.cli import app
    from aquarelle.env.environment import WatercolourEnvironment
    from aquarelle.env.models import WatercolourAction
    from aquarelle.env.work import Runner

    sketch = tmp_path / "random.js"
    sketch.write_text("function setup(){createCanvas(600,600,WEBGL);angleMode(DEGREES);noLoop();}\n"
                      "function draw(){translate(-width/2,-height/2);brush.noStroke();\n"
                      "  for (let i = 0; i < 5; i++) { brush.fill(random(['#d7263d','#2a6f97','#f4a259']), 120);\n"
                      "    brush.circle(random(100, 500), random(100, 500), random(40, 120)); } }\n")
    env = WatercolourEnvironment(Runner(0))
    env.reset(seed=3, prompt="circles", mode="sketch", action_space="full")
    obs = env.step(WatercolourAction(sketch=sketch.read_text()))
    rows = {}
    for args in (["--seed", "3"], ["--seed", "4", "--group-seed", "3"]):
        r = CliRunner().invoke(app, ["score", "--json", "--prompt", "circles", *args, str(sketch)])
        assert r.exit_code == 0, r.output
        rows[args[1]] = json.loads(r.stdout)
    assert rows["3"]["reward"] == pytest.approx(obs.reward, abs=1e-9)
    assert rows["3"]["breakdown"] == pytest.approx(dict(obs.breakdown), abs=1e-9)
    assert rows["4"]["breakdown"]["preference"] != rows["3"]["breakdown"]["preference"]  # another painting
