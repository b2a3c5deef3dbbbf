"""Paintings of nothing against the pool's loved paintings: the local scorers rate one soft circle above the median
love painting (a QA pass, 2026-12-06), and both rise together for it, so eval's divergence checks said "No sign of
it" for a run drifting to blobs. The probes say so in `pool validate` and in every gaming verdict."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from aquarelle.cli import app
from aquarelle.eval import evaluate, verdicts
from aquarelle.rewards.config import RewardConfig
from aquarelle.rewards.probes import PROBES, probe_scorers
from eval_fixtures import make_run

CALM = {"answer": "no", "text": "No sign of it: the scorers move together (judge +0.10, preference +0.08)."}


def test_the_probes_are_scored_against_the_pools_love_median():
    rep = probe_scorers(RewardConfig(preset="hps-only"))
    assert [p.name for p in rep.probes] == list(PROBES) and rep.group_seeds == [0, 1, 2]
    assert rep.love_paintings == 17
    assert rep.fooled == [p.name for p in rep.probes if p.reward >= rep.love_median]
    for p in rep.probes:  # hps-only never runs the judge: .05 gate + .05 length (as if padded: 1) + .9 preference
        assert p.judge is None and abs(p.reward - (0.05 + 0.05 + 0.9 * p.preference)) < 1e-9
    # unpadded, weights leaning on length hid the probes under the love median (0.441 and 0.454 against 0.459)
    # while the padded circle scored 0.941: the probes are scored as a padding policy would make them
    leaning = probe_scorers(RewardConfig(weights={"gate": 0.05, "length": 0.5, "judge": 0, "preference": 0.45}))
    assert leaning.fooled == list(PROBES) and min(p.reward for p in leaning.probes) > 0.9
    # weights that count only the gate: every painting that passes it scores 0.05 + 0 alike, so each probe ties
    flat = probe_scorers(RewardConfig(weights={"gate": 1, "length": 0, "judge": 0, "preference": 0}))
    assert flat.love_median == 1.0 and flat.fooled == list(PROBES)


def test_a_probe_at_the_love_median_turns_a_calm_gaming_verdict_unclear(monkeypatch):
    probes = {"probes": [{"name": "one soft circle", "reward": 0.91}, {"name": "three overlapping circles",
                                                                        "reward": 0.5}],
              "love_median": 0.66, "fooled": ["one soft circle"]}
    ev = {"scorer_probes": probes}
    monkeypatch.setattr(verdicts, "_gamed_by_policy", lambda ev: dict(CALM))
    v = verdicts.gamed(ev)
    assert v["answer"] == "unclear"
    assert v["text"].startswith("Cannot rule it out: these scorers rate a painting of nothing (one soft circle "
                                "0.91) at or above the pool's median love painting (0.66)")
    assert "otherwise no sign of it" in v["text"].lower()
    assert verdicts.gamed({"scorer_probes": {**probes, "fooled": []}}) == CALM
    assert verdicts.gamed({"scorer_probes": {"skipped": "a service"}}) == CALM
    assert verdicts.gamed({}) == CALM  # an eval.json written before the probes
    monkeypatch.setattr(verdicts, "_gamed_by_policy", lambda ev: {"answer": "yes", "text": "Likely: the judge fell."})
    assert verdicts.gamed(ev)["answer"] == "yes" and "Also: these scorers rate" in verdicts.gamed(ev)["text"]


def test_eval_probes_the_runs_own_scorers(tmp_path):
    run = make_run(tmp_path / "local", steps=3)
    ev = evaluate.evaluate(run, samples=0, progress=False)
    pr = ev["scorer_probes"]
    assert pr["fooled"] == ["one soft circle", "three overlapping circles"]  # the local scorers, judge-led
    assert ev["verdicts"]["gamed"]["answer"] != "no"
    assert "painting of nothing" in ev["verdicts"]["gamed"]["text"]

    served = make_run(tmp_path / "served", steps=3)
    cfg = json.loads((served / "config.json").read_text())
    cfg["config"]["reward"].update(judge_backend="openai", judge_url="http://127.0.0.1:9/v1")
    (served / "config.json").write_text(json.dumps(cfg))
    pr = evaluate.evaluate(served, samples=0, progress=False)["scorer_probes"]
    assert pr == {"skipped": f"the run's judge (openai) is a service: `aquarelle pool validate --config "
                             f"{served / 'config.json'}` probes it"}


def test_pool_validate_prints_the_probes():
    r = CliRunner().invoke(app, ["pool", "validate", "--json"])
    assert r.exit_code == 0, r.output
    pr = json.loads(r.stdout)["probes"]
    assert [p["name"] for p in pr["probes"]] == list(PROBES)
    r = CliRunner().invoke(app, ["pool", "validate"])
    assert r.exit_code == 0, r.output
    assert "the median of the pool's 17 love paintings" in r.stdout
    assert "warning: these scorers rate a painting of nothing" in r.stdout


def test_probes_that_cannot_be_scored_are_skipped_with_the_reason_not_evals_end(monkeypatch):
    """A sandbox that would not start (a script without `if __name__ == '__main__':`) ended eval, compare and
    report in a SandboxError traceback from the probes."""
    from aquarelle.brush.sandbox import SandboxError
    from aquarelle.rewards import probes

    def broken(config=None, group_seeds=probes.GROUP_SEEDS):
        raise SandboxError("sandbox worker died while starting")

    monkeypatch.setattr(probes, "probe_scorers", broken)
    out = evaluate._probes_of(RewardConfig(preset="hps-led").model_dump_json(), "a digest no other test uses")
    assert out == {"skipped": "the probes could not be scored: SandboxError: sandbox worker died while starting"}


def test_pool_validate_keeps_its_table_when_the_probes_fail(monkeypatch):
    """A pool with no love painting (or a probe a scorer failed) ended `pool validate` with exit 2, its table lost."""
    from aquarelle.rewards import probes
    from aquarelle.rewards.config import RewardError

    def none_to_measure(config=None, group_seeds=probes.GROUP_SEEDS):
        raise RewardError("pool p has no love painting to measure the probes against")

    monkeypatch.setattr(probes, "probe_scorers", none_to_measure)
    r = CliRunner().invoke(app, ["pool", "validate"])
    assert r.exit_code == 0, r.output
    assert "judge[local]" in r.stdout
    assert "probes: not scored (RewardError: pool p has no love painting to measure the probes against)" in r.stdout
    r = CliRunner().invoke(app, ["pool", "validate", "--json"])
    assert json.loads(r.stdout)["probes"] == {"skipped": "RewardError: pool p has no love painting to measure the "
                                                          "probes against"}
