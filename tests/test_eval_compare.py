"""`aquarelle compare` says what it compares: unlike settings, how many paintings a held-out number rests on, runs of
one name, verdicts by question; and eval reads a run's weights, eval.json's shape and out-of-date samples honestly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from aquarelle.eval import compare, evaluate, verdicts
from aquarelle.eval.run import load_run, weights_of
from eval_fixtures import HELDOUT_PROMPTS, Synth, make_run, make_samples


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    run = make_run(tmp_path_factory.mktemp("cmp") / "a" / "run", steps=3)
    make_samples(run, trained=Synth(), start=Synth(), prompts=HELDOUT_PROMPTS, split="heldout", k=2)
    r = _cli("eval", str(run), "--samples-file", str(run / "eval_samples.jsonl"), "--json")
    assert r.returncode == 0, r.stderr
    return run


def test_partial_weights_fill_from_the_runs_preset_and_are_named():
    """A run trained with `{judge: 0, preference: 0.9}` over judge-led scored with those, but eval read judge-led's
    0.6/0.3 (attribution and the gaming verdict wrong) and every page called it "judge-led"."""
    cfg = {"config": {"reward": {"preset": "judge-led", "weights": {"judge": 0.0, "preference": 0.9}}}}
    assert weights_of(cfg) == {"gate": 0.05, "length": 0.05, "judge": 0.0, "preference": 0.9}
    cfg = {"config": {"reward": {"preset": "hps-led", "weights": {"length": 0.2}}}}
    assert weights_of(cfg) == {"gate": 0.05, "length": 0.2, "judge": 0.3, "preference": 0.6}
    assert evaluate.preset_text({"preset": "judge-led", "weights": weights_of(
        {"reward": {"preset": "judge-led", "weights": {"judge": 0.0, "preference": 0.9}}})}) == \
        "judge-led, judge 0, preference 0.9"
    assert evaluate.preset_text({"preset": "hps-only", "weights": weights_of({"reward": {"preset": "hps-only"}})}) == \
        "hps-only"


def test_a_misshapen_eval_json_is_rebuilt_not_a_traceback(evaluated, tmp_path):
    good = json.loads((evaluated / "eval.json").read_text())
    assert evaluate.problem(evaluated) is None
    for name, change in (("heldout_null", {"heldout": None}),
                         ("trend_old", {"reward_trend": {k: v for k, v in good["reward_trend"].items() if k != "thirds"}}),
                         ("verdicts_list", {"verdicts": []})):
        run = tmp_path / name
        shutil.copytree(evaluated, run)
        (run / "eval.json").write_text(json.dumps({**good, **change}))
        assert "damaged, or written by another version" in evaluate.problem(run), name
        for args in (("compare", str(run), str(evaluated), "-o", str(tmp_path / f"{name}.html")),
                     ("report", str(run), "-o", str(tmp_path / f"{name}-r.html"))):
            r = _cli(*args)
            assert r.returncode == 0 and "Traceback" not in r.stderr, (name, r.stderr[-1500:])


def test_an_eval_json_written_before_the_later_keys_is_read_as_it_is(evaluated, tmp_path):
    """eval.json written before `reward_trend.end`, `diversity.sampled` and `scorer_probes` was called damaged, and
    report and compare rebuilt it (probes and all) on every call."""
    good = json.loads((evaluated / "eval.json").read_text())
    old = {**good, "reward_trend": {k: v for k, v in good["reward_trend"].items() if k != "end"},
           "diversity": {k: v for k, v in good["diversity"].items() if k != "sampled"}}
    old.pop("scorer_probes", None)
    run = tmp_path / "old"
    shutil.copytree(evaluated, run)
    (run / "eval.json").write_text(json.dumps(old))
    assert evaluate.problem(run) is None
    assert verdicts.all_verdicts(old)["gamed"]["question"]
    r = _cli("report", str(run), "-o", str(tmp_path / "old.html"))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-1500:]


def test_compare_tells_runs_of_one_name_apart_and_matches_verdicts_by_question(evaluated, tmp_path):
    twin = make_run(tmp_path / "b" / "run", steps=3, seed=2)
    runs = [load_run(evaluated), load_run(twin)]
    assert compare.labels(runs) == ["a/run", "b/run"]
    assert compare.labels([runs[0], runs[0]]) == ["run", "run (2)"]
    # one eval.json with its verdicts in another order and without one: each cell under its own question
    reordered = tmp_path / "c" / "run"
    shutil.copytree(evaluated, reordered)
    ev = json.loads((reordered / "eval.json").read_text())
    ev["verdicts"] = {k: ev["verdicts"][k] for k in ("gamed", "improves", "heldout", "diverse")}
    (reordered / "eval.json").write_text(json.dumps(ev))
    page = compare.build([evaluated, reordered])
    table = page[page.index('id="verdicts"'):page.index('id="gallery"')]
    head = table[:table.index("</thead>")]
    assert head.index(verdicts.QUESTIONS["improves"]) < head.index(verdicts.QUESTIONS["gamed"])
    rows = table.split("<tr>")[2:]
    cells = [r.split("<td>")[1:] for r in rows]
    assert all(len(c) == 1 + len(verdicts.QUESTIONS) for c in cells)
    gamed_col = 1 + list(verdicts.QUESTIONS).index("gamed")
    assert cells[0][gamed_col] == cells[1][gamed_col]
    assert "n/a" in cells[1][1 + list(verdicts.QUESTIONS).index("tools")]


def test_compare_says_what_differs_and_what_a_heldout_number_rests_on(evaluated, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(evaluated, other)
    cfg = json.loads((other / "config.json").read_text())
    cfg["config"]["env"]["image_size"] = 64
    cfg["config"]["optim"]["seed"] = 7
    (other / "config.json").write_text(json.dumps(cfg))
    with (other / "rollouts.jsonl").open("a") as f:
        f.write('{"step": \n')  # a line cut off by a killed run
    r = _cli("compare", str(evaluated), str(other), "-o", str(tmp_path / "c.html"))
    assert r.returncode == 0, r.stderr
    assert "note: these runs differ in image size, seed" in r.stderr
    assert "unreadable lines" in r.stderr and str(other) in r.stderr
    # the terminal table, like the page, says what the held-out gap rests on and how far it can be trusted
    out = " ".join(r.stdout.split())
    assert "held-out prompts x samples" in out and "2 x 1" in out and "n/a: too few prompts" in out
    # a column per run (a column per measure folded every number at 80 columns), and "scorer gamed" is the
    # verdict's answer, not the divergence check's alone
    head = next(x for x in r.stdout.splitlines() if "┃ run" in x)
    assert evaluated.name in head and other.name in head
    gamed = next(x for x in r.stdout.splitlines() if "scorer gamed" in x)
    assert gamed.split("│")[2].strip() == compare.rows([evaluated])[0]["scorer gamed"] == \
        json.loads((evaluated / "eval.json").read_text())["verdicts"]["gamed"]["answer"]
    page = (tmp_path / "c.html").read_text()
    assert "These runs differ in <b>image size, seed</b>" in page
    table = compare.rows([evaluated, other])
    # two held-out prompts, one sample each: no interval, and the page says so
    assert table[0]["held-out prompts x samples"] == "2 x 1"
    assert table[0]["vs start 95% interval"] == "n/a: too few prompts"
    assert table[0]["_settings"]["held-out prompts"] == "2: h-boat, h-lemons"


def test_samples_of_an_earlier_policy_are_marked_out_of_date(evaluated, tmp_path):
    """After training went on, compare and the report put the held-out verdict of the step-3 policy beside the
    refreshed trend, unmarked."""
    run = tmp_path / "growing"
    shutil.copytree(evaluated, run)
    longer = make_run(tmp_path / "longer", steps=6, seed=1)
    for name in ("rollouts.jsonl", "metrics.jsonl"):
        (run / name).write_text((longer / name).read_text())
    for png in (longer / "images").iterdir():
        (run / "images" / png.name).write_bytes(png.read_bytes())
    row = compare.rows([run])[0]
    v = row["_verdicts"]["heldout"]
    assert v["answer"] == "unclear" and v["text"].startswith("Out of date: its samples are of the policy after 3 steps")
    assert row["held-out prompts x samples"] == "2 x 1 (of an earlier policy)"
    # the other verdicts' sample parts say it too
    assert "Sampled trained policy" in row["_verdicts"]["tools"]["text"]
    assert "(Those samples are out of date: its samples are of the policy after 3 steps" in row["_verdicts"]["tools"]["text"]
    assert compare.rows([evaluated])[0]["_verdicts"]["heldout"]["text"].startswith("Out of date") is False


def test_tool_errors_are_weighed_per_call():
    """"Yes" with an error in every episode of 2 calls; and per episode, 40 calls with one error read "Not
    consistently" while 4 calls with 0.9 read "Yes"."""
    ta = {"episodes": 4, "method_usage": {"circle": 1.0}, "calls": 8, "calls_per_episode": 2.0, "action_space": "hf10",
          "outside_rate": 0.0, "invented_rate": 0.0, "errors_per_episode": 1.0, "episodes_with_errors": 1.0}
    assert verdicts.tools({"tool_adherence": ta})["answer"] == "no"
    many = {**ta, "calls": 160, "calls_per_episode": 40.0}
    assert verdicts.tools({"tool_adherence": many})["answer"] == "yes"
    few = {**ta, "calls": 16, "calls_per_episode": 4.0, "errors_per_episode": 0.9, "episodes_with_errors": 0.9}
    assert verdicts.tools({"tool_adherence": few})["answer"] == "no"
    sketch = {**ta, "calls": 0, "calls_per_episode": 0.0, "method_usage": {}}  # no call to weigh: per episode
    assert verdicts.tools({"tool_adherence": sketch})["answer"] == "no"


def test_a_reward_past_1_stays_on_the_chart():
    """Custom weights reward up to their sum: the compare plot's axis was fixed at 0-1."""
    from aquarelle.eval import plots

    class Ax:
        def set_ylim(self, lo, hi):
            self.lim = (lo, hi)

    ax = Ax()
    plots._reward_ylim(ax, [1.98, 2.9])
    assert ax.lim[0] < 0 and ax.lim[1] > 2.9
    plots._reward_ylim(ax, [0.2, 0.5])
    assert ax.lim == pytest.approx((-0.02, 1.02))
