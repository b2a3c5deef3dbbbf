"""`aquarelle eval` and `aquarelle compare` from the command line, on synthetic runs with pre-sampled paintings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from aquarelle.eval.sampling import SamplingError, _store_image, start_policy
from aquarelle.eval.run import load_run
from eval_fixtures import HELDOUT_PROMPTS, TRAIN_PROMPTS, Synth, make_run, make_samples

AQUARELLE = [sys.executable, "-m", "aquarelle.cli"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", COLUMNS="200")
    return subprocess.run([*AQUARELLE, *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def run_with_samples(tmp_path_factory):
    path = make_run(tmp_path_factory.mktemp("cli") / "run", steps=9)
    make_samples(path, trained=Synth(judge=(0.7, 0.7), gate_fail=(0, 0)), start=Synth(judge=(0.3, 0.3), gate_fail=(0, 0)),
                 prompts=HELDOUT_PROMPTS, split="heldout", k=4)
    return path


def test_eval_json_stdout_is_only_the_object_and_eval_json_is_written(run_with_samples):
    res = _cli("eval", str(run_with_samples), "--samples-file", str(run_with_samples / "eval_samples.jsonl"), "--json")
    assert res.returncode == 0, res.stderr
    ev = json.loads(res.stdout)  # the whole of stdout parses: nothing else was printed there
    on_disk = json.loads((run_with_samples / "eval.json").read_text())
    assert on_disk["reward_trend"] == ev["reward_trend"]
    for key in ("reward_trend", "term_attribution", "scorer_agreement", "diversity", "tool_adherence", "heldout",
                "bad_rollouts", "coverage", "verdicts"):
        assert key in ev
    h = ev["heldout"]
    assert h["heldout"]["n"] == 4 and h["start"]["n"] == 4
    assert h["trained_vs_start"]["improvement"] > 0.1
    assert h["train_source"].startswith("training rollouts")
    assert ev["sampling"]["source"].endswith("eval_samples.jsonl")


def test_eval_prints_a_table_of_the_four_questions(run_with_samples):
    res = _cli("eval", str(run_with_samples), "--samples-file", str(run_with_samples / "eval_samples.jsonl"))
    assert res.returncode == 0, res.stderr
    for q in ("improve steadily", "over-fitting one", "diverse", "held-out", "tools"):
        assert q in res.stdout
    assert "wrote" in res.stderr


def test_eval_bad_input_is_one_line_not_a_traceback(tmp_path):
    res = _cli("eval", str(tmp_path / "missing"))
    assert res.returncode == 1
    assert res.stderr.strip().count("\n") == 0 and "does not exist" in res.stderr
    assert "Traceback" not in res.stderr
    run = make_run(tmp_path / "r", steps=2)
    res = _cli("eval", str(run), "--prompts", "everything")
    assert res.returncode == 2 and "--prompts must be heldout, train or all" in res.stderr
    res = _cli("eval", str(run), "--samples-file", str(tmp_path / "none.jsonl"))
    assert res.returncode == 1 and "none.jsonl does not exist" in res.stderr and "Traceback" not in res.stderr


def test_eval_with_zero_samples_uses_the_rollouts_only(tmp_path):
    run = make_run(tmp_path / "r", steps=2)
    res = _cli("eval", str(run), "--samples", "0", "--json")
    assert res.returncode == 0, res.stderr
    ev = json.loads(res.stdout)
    assert ev["reward_trend"]["thirds"] is None
    assert ev["heldout"]["holds"] is None and ev["verdicts"]["heldout"]["answer"] == "unclear"


def test_compare_puts_presets_side_by_side(tmp_path):
    runs = [make_run(tmp_path / p, steps=6, preset=p, seed=i) for i, p in enumerate(("judge-led", "hps-led", "hps-only"))]
    out = tmp_path / "compare.html"
    res = _cli("compare", *map(str, runs), "-o", str(out))
    assert res.returncode == 0, res.stderr
    page = out.read_text()
    for p in ("judge-led", "hps-led", "hps-only"):
        assert p in page and p in res.stdout
    assert page.count("<table") >= 2 and "reward per step" in page


def test_compare_counts_the_steps_trained_after_the_eval(tmp_path):
    """After ``train --resume`` compare showed the eval's old step count (the report refreshed it): both read the
    training rollouts anew when there are more than eval.json counted."""
    from aquarelle.eval.compare import rows

    short, longer = make_run(tmp_path / "short", steps=3), make_run(tmp_path / "longer", steps=6, seed=1)
    res = _cli("eval", str(short), "--samples", "0", "--json")
    assert res.returncode == 0, res.stderr
    for name in ("rollouts.jsonl", "metrics.jsonl"):  # training went on: the longer run's lines are the short's now
        (short / name).write_text((longer / name).read_text())
    for png in (longer / "images").iterdir():
        (short / "images" / png.name).write_bytes(png.read_bytes())
    row = rows([short])[0]
    assert row["steps"] == "6 steps", row["steps"]
    assert json.loads((short / "eval.json").read_text())["steps"] == 3  # eval.json itself is as eval wrote it


def test_start_policy_is_read_from_the_config(tmp_path):
    run = load_run(make_run(tmp_path / "r", steps=2))
    assert start_policy(run) == "tiny-test-model"
    cfg = json.loads((run.path / "config.json").read_text())
    cfg["policy"] = "/cache/aquarelle/sft-smollm2"  # the warm start GRPO began from
    (run.path / "config.json").write_text(json.dumps(cfg))
    assert start_policy(load_run(run.path)) == "/cache/aquarelle/sft-smollm2"
    (run.path / "config.json").write_text(json.dumps({"config": {"mode": "tools"}}))
    with pytest.raises(SamplingError, match="does not name the starting model"):
        start_policy(load_run(run.path))


def test_sampled_images_are_stored_relative_to_the_run(tmp_path):
    import numpy as np
    from PIL import Image

    run = load_run(make_run(tmp_path / "r", steps=2))
    outside = tmp_path / "elsewhere.png"
    Image.new("RGB", (8, 8), (200, 10, 10)).save(outside)
    rel = _store_image({"image": str(outside)}, run, "eval/heldout/trained", "000-x")
    assert rel == "eval/heldout/trained/000-x.png" and (run.path / rel).exists()
    rel2 = _store_image({"image": np.zeros((8, 8, 3), np.uint8)}, run, "eval/heldout/start", "001-y")
    assert (run.path / rel2).exists()
    inside = run.rollouts[0].image
    assert _store_image({"image": inside}, run, "eval/x", "z") == inside
    assert _store_image({"image": str(tmp_path / "gone.png")}, run, "eval/x", "z") is None


def test_train_prompts_come_from_the_run(tmp_path):
    from aquarelle.eval.prompts import PromptError, run_prompts, select

    run = load_run(make_run(tmp_path / "r", steps=4))
    got = select(run, "train")
    assert [p.id for p in got] == [p for p, _ in TRAIN_PROMPTS]
    assert run_prompts(run)[0].prompt == TRAIN_PROMPTS[0][1]
    with pytest.raises(PromptError, match="--prompts must be"):
        select(run, "bogus")


def test_help_lists_the_eval_commands():
    res = _cli("--help")
    assert res.returncode == 0
    for cmd in ("eval", "report", "compare"):
        assert cmd in res.stdout


def test_heldout_prompts_come_from_the_pool_and_never_from_training(tmp_path):
    from aquarelle.eval.prompts import select

    run = load_run(make_run(tmp_path / "r", steps=4))
    held = select(run, "heldout")
    assert len(held) >= 12 and all(p.split == "heldout" for p in held)
    assert not {p.prompt for p in held} & {r.prompt for r in run.rollouts}
    both = select(run, "all")
    assert {p.split for p in both} == {"train", "heldout"}


def test_a_run_with_its_own_prompt_file_uses_it(tmp_path):
    from aquarelle.eval.prompts import select

    path = make_run(tmp_path / "r", steps=2)
    (tmp_path / "mine.json").write_text(json.dumps({"prompts": [
        {"id": "a", "prompt": "an owl at night", "split": "heldout"}, {"id": "b", "prompt": "a red kite", "split": "train"}]}))
    cfg = json.loads((path / "config.json").read_text())
    cfg["config"]["prompts"] = str(tmp_path / "mine.json")
    (path / "config.json").write_text(json.dumps(cfg))
    assert [p.prompt for p in select(load_run(path), "heldout")] == ["an owl at night"]


def test_eval_reads_the_prompt_file_training_read_and_names_one_that_is_gone(tmp_path, monkeypatch):
    """Training read the repository's prompts (or its config's file) while eval read AQUARELLE_POOL's, and a run whose
    prompt file had moved was evaluated on another prompt set without a word."""
    from aquarelle.eval.prompts import PromptError, select
    from aquarelle.train.data import load_prompts

    path = make_run(tmp_path / "r", steps=2)
    mypool = tmp_path / "mypool"
    mypool.mkdir()
    (mypool / "prompts.json").write_text(json.dumps([{"id": "q", "prompt": "a harbour", "split": "heldout"},
                                                     {"id": "t", "prompt": "a tree", "split": "train"}]))
    monkeypatch.setenv("AQUARELLE_POOL", str(mypool))
    repo_held = [r.prompt for r in load_prompts(None, "heldout")]  # what training's default split holds out
    assert [p.prompt for p in select(load_run(path), "heldout")] == repo_held
    gone = tmp_path / "gone.json"
    cfg = json.loads((path / "config.json").read_text())
    cfg["prompt_file"] = str(gone)  # as training records it
    (path / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(PromptError, match=r"cannot read the prompt set: prompt file .*gone\.json does not exist"):
        select(load_run(path), "heldout")
    gone.write_text(json.dumps([{"id": "v", "prompt": "a blue moon", "split": "validation"},
                                {"id": "w", "prompt": "a red sun", "split": "train"}]))
    assert [p.prompt for p in select(load_run(path), "heldout")] == ["a blue moon"]


def test_samples_are_spread_over_the_prompt_list():
    from aquarelle.eval.prompts import EvalPrompt
    from aquarelle.eval.sampling import spread

    ps = [EvalPrompt(str(i), f"p{i}", "heldout") for i in range(16)]
    assert [p.id for p in spread(ps, 4)] == ["0", "4", "8", "12"]
    assert [p.id for p in spread(ps[:3], 5)] == ["0", "1", "2", "0", "1"]


def test_samples_0_keeps_the_last_samplings_paintings_while_they_are_of_this_policy(run_with_samples, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_with_samples, run)
    (run / "eval_samples.jsonl").touch()  # written after training, as eval does
    res = _cli("eval", str(run), "--samples", "0", "--json")
    assert res.returncode == 0, res.stderr
    ev = json.loads(res.stdout)
    # it used to drop the held-out comparison from eval.json while eval_samples.jsonl, which holds it, stayed
    assert ev["sampling"]["source"] == "eval_samples.jsonl" and ev["heldout"]["heldout"]["n"] == 4
    assert "none drawn now" in ev["sampling"]["reason"]
    later = (run / "eval_samples.jsonl").stat().st_mtime + 60
    os.utime(run / "metrics.jsonl", (later, later))  # training went on: the samples are of an earlier policy
    ev = json.loads(_cli("eval", str(run), "--samples", "0", "--json").stdout)
    assert ev["sampling"]["source"] is None and ev["sampling"]["n"] == 0
    assert "predates the run's last training" in ev["sampling"]["reason"]


def test_eval_samples_both_policies_at_the_temperature_training_sampled_at(tmp_path, monkeypatch):
    """`paint` on its own samples at 0.7; GRPO sampled at the run's generation.temperature. Eval compares the
    policies on the distribution training optimised unless --temperature says otherwise, and says which it used."""
    from typer.testing import CliRunner

    from aquarelle.cli import app
    from aquarelle.eval.report import build
    from aquarelle.train import sample

    path = make_run(tmp_path / "r", steps=3)
    cfg = json.loads((path / "config.json").read_text())
    cfg["config"]["generation"]["temperature"] = 0.9
    (path / "config.json").write_text(json.dumps(cfg))
    seen: list[float] = []

    def paint(policy, prompt, *, temperature=0.7, **kw):
        seen.append(temperature)
        return {"reward": 0.5, "image": None}

    monkeypatch.setattr(sample, "paint", paint)
    monkeypatch.setattr(sample, "load_policy", lambda policy: policy)
    for flags, want in (([], 0.9), (["--temperature", "0.3"], 0.3)):
        seen.clear()
        res = CliRunner().invoke(app, ["eval", str(path), "--samples", "2", *flags])
        assert res.exit_code == 0, res.output
        assert seen == [want] * 4  # trained and start, 2 each
        assert json.loads((path / "eval.json").read_text())["sampling"]["temperature"] == want
        rows = [json.loads(x) for x in (path / "eval_samples.jsonl").read_text().splitlines()]
        assert [r["temperature"] for r in rows] == [want] * 4
    assert f"temperature {want:g}" in build(path)
    res = CliRunner().invoke(app, ["eval", str(path), "--samples", "0", "--temperature", "0.5"])
    assert res.exit_code == 2 and "--temperature applies only when eval samples" in res.output


def test_eval_refuses_a_samples_count_out_of_range_or_beside_a_samples_file(run_with_samples, tmp_path):
    """A 20-digit --samples hung planning its samples before any model loaded; --samples beside --samples-file was
    silently ignored. Both are one line, exit 2, before anything is read or written."""
    from aquarelle.eval.sampling import MAX_SAMPLES, sample_policies

    for n in ("99999999999999999999", str(MAX_SAMPLES + 1), "-1"):
        res = _cli("eval", str(tmp_path / "no-such-run"), "--samples", n)
        assert res.returncode == 2 and res.stderr.strip() == f"error: --samples must be 0-{MAX_SAMPLES}, not {n}"
    res = _cli("eval", str(run_with_samples), "--samples", "7", "--samples-file",
               str(run_with_samples / "eval_samples.jsonl"))
    assert res.returncode == 2 and res.stderr.strip().count("\n") == 0
    assert "--samples applies only when eval samples (not with --samples-file)" in res.stderr
    with pytest.raises(SamplingError, match="--samples must be"):  # the library call is bounded too
        sample_policies(load_run(run_with_samples), [], 10 ** 20)


def test_the_comparison_on_training_prompts_is_shown_where_it_is_computed(tmp_path):
    """eval.json held `policies.train_comparison` (trained 0.8 against start 0.2 on training prompts), and neither
    the table nor the report showed it."""
    from aquarelle.eval.report import write_report

    path = make_run(tmp_path / "run", steps=6)
    make_samples(path, trained=Synth(judge=(0.7, 0.7), gate_fail=(0, 0)), start=Synth(judge=(0.2, 0.2), gate_fail=(0, 0)),
                 prompts=TRAIN_PROMPTS[:2], split="train", k=2)
    res = _cli("eval", str(path), "--samples-file", str(path / "eval_samples.jsonl"), "--prompts", "train")
    assert res.returncode == 0, res.stderr
    ev = json.loads((path / "eval.json").read_text())
    tc = ev["policies"]["train_comparison"]
    assert tc["improvement"] > 0.2 and tc["better"] == 2
    assert "start (train prompts)" in res.stdout
    assert f"trained minus start on training prompts: reward {tc['improvement']:+.3f}, better on 2 of 2 prompts" \
        in " ".join(res.stdout.split())
    page = write_report(path, tmp_path / "r.html").read_text()
    assert "trained minus start on training prompts, reward" in page and "training prompts better / level / worse" in page


def test_eval_json_records_the_seed_its_samples_were_drawn_with_and_the_code_that_computed_it(tmp_path, monkeypatch):
    """`eval --seed` was written nowhere, and `--samples 0 --seed 5` reused samples drawn at seed 0 unsaid; nor did
    eval.json say which code computed it."""
    from typer.testing import CliRunner

    from aquarelle.cli import app
    from aquarelle.train import sample

    path = make_run(tmp_path / "r", steps=3)
    monkeypatch.setattr(sample, "paint", lambda policy, prompt, **kw: {"reward": 0.5, "image": None})
    monkeypatch.setattr(sample, "load_policy", lambda policy: policy)
    res = CliRunner().invoke(app, ["eval", str(path), "--samples", "2", "--seed", "5"])
    assert res.exit_code == 0, res.output
    ev = json.loads((path / "eval.json").read_text())
    assert ev["sampling"]["seed"] == 5
    assert [r["eval_seed"] for r in map(json.loads, (path / "eval_samples.jsonl").read_text().splitlines())] == [5] * 4
    assert "trl" in ev["provenance"]["versions"] and "git_dirty" in ev["provenance"]
    res = CliRunner().invoke(app, ["eval", str(path), "--samples", "0"])
    assert res.exit_code == 0, res.output
    assert json.loads((path / "eval.json").read_text())["sampling"]["seed"] == 5  # the samples reused, as drawn
