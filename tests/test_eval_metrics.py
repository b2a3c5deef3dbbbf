"""Every evaluation metric on a synthetic run built to show it."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from aquarelle.eval import images, metrics
from aquarelle.eval.evaluate import evaluate, loader, training_metrics
from aquarelle.eval.run import Rollout, RunError, load_run, load_samples
from eval_fixtures import HELDOUT_PROMPTS, TRAIN_PROMPTS, Synth, make_run, make_samples


@pytest.fixture(scope="module")
def rising(tmp_path_factory):
    return load_run(make_run(tmp_path_factory.mktemp("rising"), steps=9))


@pytest.fixture(scope="module")
def flat(tmp_path_factory):
    return load_run(make_run(tmp_path_factory.mktemp("flat"), steps=9, judge=(0.5, 0.5), preference=(0.6, 0.6),
                             gate_fail=(0.1, 0.1), seed=3))


def test_reward_trend_rising_run_is_steady_with_a_significant_slope(rising):
    rt = metrics.reward_trend(rising.rollouts)
    tot = rt["thirds"]["total"]
    assert tot[0] < tot[1] < tot[2]
    assert rt["trend"]["t_stat"] > 2 and rt["trend"]["slope"] > 0
    assert rt["steady"] is True
    assert rt["thirds"]["judge"][2] > rt["thirds"]["judge"][0]
    assert len(rt["per_step"]) == 9


def test_reward_trend_flat_run_is_not_steady(flat):
    rt = metrics.reward_trend(flat.rollouts)
    assert rt["steady"] is False
    assert abs(rt["trend"]["t_stat"]) < 2.5


def test_two_step_run_gives_nulls_not_errors(tmp_path):
    run = make_run(tmp_path / "short", steps=2)
    ev = evaluate(run, samples=0, progress=False)
    assert ev["reward_trend"]["thirds"] is None and ev["reward_trend"]["trend"]["t_stat"] is None
    assert ev["reward_trend"]["reason"]
    assert ev["term_attribution"]["term_change"] is None and ev["term_attribution"]["share_of_change"] is None
    assert ev["scorer_agreement"]["gamed"] is None
    assert ev["bad_rollouts"]["thirds"] is None and ev["bad_rollouts"]["rate"] is not None
    assert ev["tool_adherence"]["errors_per_episode_thirds"] is None
    assert ev["verdicts"]["improves"]["answer"] == "unclear"
    text = json.dumps(ev, allow_nan=False)  # strict JSON: no NaN or Infinity sneaks in
    assert '"t_stat": null' in text



def test_a_short_run_under_generation_reuse_names_its_optimizer_steps_and_those_with_rollouts(tmp_path):
    """With steps_per_generation 2 a 4-step run has rollouts at 2 steps: eval.json's steps and the report's header
    said 4 (2 with rollouts), but the verdict said "2 training step(s)" and the short-run reason "fewer than 3
    training steps"."""
    from aquarelle.eval.report import build

    run = make_run(tmp_path / "reuse", steps=2)
    (run / "summary.json").write_text(json.dumps({"steps": 4}))  # what train writes: the optimizer steps
    ev = evaluate(run, samples=0, progress=False)
    assert ev["steps"] == 4 and ev["rollout_steps"] == 2
    text = ev["verdicts"]["improves"]["text"]
    assert text.startswith("Too short to tell: 4 training steps (2 with rollouts; reward "), text
    assert "rollouts from at least 3 steps" in text
    assert "training step(s)" not in json.dumps(ev) and "fewer than 3 training steps" not in json.dumps(ev)
    assert "fewer than 3 steps with rollouts" in ev["verdicts"]["gamed"]["text"]
    page = build(run)
    assert "4 steps (2 with rollouts)" in page and "4 training steps (2 with rollouts; reward " in page
    plain = evaluate(make_run(tmp_path / "plain", steps=2), samples=0, progress=False)  # without reuse: as before
    assert plain["verdicts"]["improves"]["text"].startswith("Too short to tell: 2 training steps (reward ")

def test_compare_and_the_eval_table_name_the_steps_as_the_report_header_does(tmp_path):
    """A 4-step run with rollouts at 2 steps: the report's header said "4 steps (2 with rollouts)", but `compare`'s
    steps column and `eval`'s table title said "4" / "4 steps"."""
    from rich.console import Console

    from aquarelle.eval import compare, evaluate as evaluate_mod
    from aquarelle.eval.report import build

    reuse = make_run(tmp_path / "reuse", steps=2)
    (reuse / "summary.json").write_text(json.dumps({"steps": 4}))  # the optimizer steps, as train writes them
    plain = make_run(tmp_path / "plain", steps=2, seed=1)
    ev = evaluate(reuse, samples=0, progress=False)
    evaluate_mod.write(reuse, ev)
    assert "4 steps (2 with rollouts)" in build(reuse)

    console = Console(record=True, width=240)
    evaluate_mod.print_table(ev, console=console)
    assert "aquarelle eval: reuse (judge-led, 4 steps (2 with rollouts), 16 rollouts)" in console.export_text()

    table = compare.rows([reuse, plain])
    assert [t["steps"] for t in table] == ["4 steps (2 with rollouts)", "2 steps"]
    console = Console(record=True, width=400)
    compare.print_table(table, console=console)
    assert "4 steps (2 with rollouts)" in console.export_text()
    assert "4 steps (2 with rollouts)" in compare.build([reuse, plain], table)
    assert evaluate_mod.steps_text({"steps": 1, "rollout_steps": 1}) == "1 step"


def test_one_step_and_empty_runs_do_not_raise(tmp_path):
    run = make_run(tmp_path / "one", steps=1, group_size=1)
    ev = evaluate(run, samples=0, progress=False)
    assert ev["diversity"]["within_group"] is None
    assert ev["scorer_agreement"]["spearman"] is None
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "rollouts.jsonl").write_text("")
    ev = evaluate(tmp_path / "empty", samples=0, progress=False)
    assert ev["rollouts"] == 0 and ev["bad_rollouts"]["rate"] is None
    assert ev["verdicts"]["tools"]["answer"] == "unclear"


def test_term_attribution_names_the_term_that_moved(tmp_path):
    run = load_run(make_run(tmp_path / "r", steps=9, judge=(0.2, 0.9), preference=(0.6, 0.6), gate_fail=(0, 0),
                            noise=0.02))
    ta = metrics.term_attribution(run.rollouts, run.weights)
    assert ta["dominant"] == "judge"
    assert ta["share_of_change"]["judge"] > 0.8
    # the weighted terms account for the whole change of the total (reward is their sum)
    assert abs(sum(ta["term_change"].values()) + ta["residual"] - ta["change"]) < 1e-3
    assert abs(ta["residual"]) < 1e-3
    assert ta["correlation_with_total"]["judge"] > 0.8


def test_preference_rising_while_judge_falls_is_flagged(tmp_path):
    run = load_run(make_run(tmp_path / "gamed", steps=9, preset="hps-led", judge=(0.7, 0.3), preference=(0.4, 0.9),
                            gate_fail=(0, 0), noise=0.02))
    sa = metrics.scorer_agreement(run.rollouts, run.judge_references)
    assert sa["gamed"] is True
    assert sa["preference_change"] > 0 > sa["judge_change"]
    assert any(f.startswith("preference rises") for f in sa["flags"])
    assert sa["spearman"] < 0  # the scorers disagree on which paintings are better


def test_scorers_rising_together_are_not_flagged(rising):
    sa = metrics.scorer_agreement(rising.rollouts, rising.judge_references)
    assert sa["gamed"] is False and sa["flags"] == []
    assert sa["spearman"] > 0.3


def test_judge_position_bias_rate(tmp_path):
    run = load_run(make_run(tmp_path / "bias", steps=3, position_bias=2, gate_fail=(0, 0)))
    sa = metrics.scorer_agreement(run.rollouts, run.judge_references)
    assert sa["position_bias_rate"] == pytest.approx(0.5)  # 2 flips of 4 references
    run0 = load_run(make_run(tmp_path / "nobias", steps=3, position_bias=0, gate_fail=(0, 0)))
    assert metrics.scorer_agreement(run0.rollouts)["position_bias_rate"] == 0.0


def test_collapsed_run_is_flagged_and_diverse_run_is_not(tmp_path, rising):
    collapsed = load_run(make_run(tmp_path / "collapsed", steps=9, collapse_after=0.6))
    d = metrics.diversity(collapsed.rollouts, loader(collapsed))
    assert d["collapsed"] is True and d["collapse_reasons"]
    assert d["within_group_thirds"][2] < d["within_group_thirds"][0]
    assert d["duplicate_code_rate"] > 0.3
    ok = metrics.diversity(rising.rollouts, loader(rising))
    assert ok["collapsed"] is False
    assert ok["within_group"] > 0.05 and ok["across_prompts"] > 0.05
    assert 0 < ok["palette_entropy"] <= 6


def test_image_measures():
    import numpy as np

    blank = np.full((16, 16, 3), 240, np.uint8)
    assert images.palette_entropy(blank) is None
    one = blank.copy()
    one[4:12, 4:12] = (200, 30, 30)
    assert images.palette_entropy(one) == 0.0
    two = one.copy()
    two[4:8, 4:12] = (30, 30, 200)
    assert images.palette_entropy(two) == pytest.approx(1.0)
    t = np.zeros((4, 4, 3), np.float32)
    assert images.mean_pairwise([t]) is None
    assert images.mean_pairwise([t, t + 0.5]) == pytest.approx(0.5)


def test_missing_images_are_counted_not_fatal(tmp_path):
    path = make_run(tmp_path / "r", steps=3)
    for p in list((path / "images").glob("*.png"))[:5]:
        p.unlink()
    run = load_run(path)
    d = metrics.diversity(run.rollouts, loader(run))
    assert d["missing_images"] == 5 and d["n_images"] == len(run.rollouts) - 5


def test_tool_adherence_counts_outside_and_invented_calls(tmp_path):
    run = load_run(make_run(tmp_path / "tools", steps=6, outside_rate=0.5, invented_rate=0.25, seed=7))
    ta = metrics.tool_adherence(run.rollouts, run.action_space)
    n_rect = sum(r.methods.get("rect", 0) for r in run.rollouts)
    n_sky = sum(any("paintSky" in e for e in r.errors) for r in run.rollouts)
    assert n_rect > 0 and n_sky > 0
    assert ta["outside_calls"] == n_rect and ta["outside_methods"] == {"rect": n_rect}
    assert ta["invented_calls"] == n_sky and ta["invented_methods"] == {"paintSky": n_sky}
    assert ta["errors_per_episode"] == pytest.approx(sum(len(r.errors) for r in run.rollouts) / len(run.rollouts),
                                                     abs=1e-4)
    assert sum(ta["method_usage"].values()) == pytest.approx(1.0, abs=1e-3)
    assert ta["method_usage"]["circle"] > 0
    # the same calls are legal in the full space: nothing outside, the invented one still invented
    full = metrics.tool_adherence(run.rollouts, "full")
    assert full["outside_calls"] == 0 and full["invented_calls"] == n_sky


def test_clean_run_has_no_adherence_problems(rising):
    ta = metrics.tool_adherence(rising.rollouts, "hf10")
    assert ta["outside_calls"] == 0 and ta["invented_calls"] == 0 and ta["errors_per_episode"] == 0


def test_bad_rollout_rate_falls_by_third(tmp_path):
    run = load_run(make_run(tmp_path / "bad", steps=9, gate_fail=(0.8, 0.0), seed=2))
    b = metrics.bad_rollouts(run.rollouts)
    assert b["thirds"][0] > b["thirds"][2]
    assert b["rate"] == pytest.approx(sum(r.reward < 0.3 for r in run.rollouts) / len(run.rollouts), abs=1e-4)


def test_unscored_rollouts_are_left_out_not_zeroed(tmp_path):
    path = make_run(tmp_path / "r", steps=3, gate_fail=(0, 0))
    lines = (path / "rollouts.jsonl").read_text().splitlines()
    rows = [json.loads(x) for x in lines]
    for r in rows[:4]:
        r["reward"] = None
    (path / "rollouts.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n{broken line\n")
    run = load_run(path)
    assert run.skipped_lines == 1
    b = metrics.bad_rollouts(run.rollouts)
    assert b["unscored"] == 4 and b["n"] == len(rows) - 4
    rt = metrics.reward_trend(run.rollouts)
    scored0 = [r["reward"] for r in rows if r["step"] == 0 and r["reward"] is not None]
    assert rt["per_step"][0]["reward"] == pytest.approx(sum(scored0) / len(scored0), abs=1e-4)


def test_coverage_stats(rising):
    c = metrics.coverage_stats(rising.rollouts)
    covs = sorted(r.coverage for r in rising.rollouts)
    assert c["min"] == pytest.approx(covs[0], abs=1e-4) and c["max"] == pytest.approx(covs[-1], abs=1e-4)
    assert c["p10"] <= c["median"] <= c["p90"]
    assert len(c["thirds"]) == 3 and c["below_gate"] == 0.0
    assert metrics.coverage_stats([])["mean"] is None


def test_heldout_gap_is_measured(tmp_path):
    path = make_run(tmp_path / "gap", steps=6, judge=(0.8, 0.8), preference=(0.8, 0.8), gate_fail=(0, 0))
    poor = Synth(judge=(0.3, 0.3), preference=(0.3, 0.3), gate_fail=(0, 0), noise=0.01)
    good = Synth(judge=(0.8, 0.8), preference=(0.8, 0.8), gate_fail=(0, 0), noise=0.01)
    make_samples(path, trained=good, start=poor, prompts=TRAIN_PROMPTS, split="train", k=4)
    make_samples(path, trained=poor, start=poor, prompts=HELDOUT_PROMPTS, split="heldout", k=4, append=True)
    run = load_run(path)
    samples = load_samples(path / "eval_samples.jsonl")
    tr = [r for r in samples if r.policy == "trained" and r.split == "train"]
    ho = [r for r in samples if r.policy == "trained" and r.split == "heldout"]
    h = metrics.heldout(tr, ho, loader(run), run.action_space)
    # reward = .05 + .05*length + .6*judge + .3*pref: a 0.5 drop of judge and preference is ~0.45 of reward
    assert h["gap"]["reward"] == pytest.approx(0.45, abs=0.05)
    assert h["gap"]["judge"] == pytest.approx(0.5, abs=0.05)
    # two held-out prompts: a gap of 0.45 cannot be told from noise (an interval needs 5 prompts)
    assert h["holds"] is None and "cannot tell a gap from noise" in h["reason"] and h["gap_ci"] is None
    assert h["heldout"]["prompts"] == len(HELDOUT_PROMPTS)


def _by_prompt(rewards: dict[str, list[float]], split: str = "train") -> list[Rollout]:
    return [Rollout.from_dict({"step": 0, "prompt": p, "reward": v, "split": split})
            for p, vs in rewards.items() for v in vs]


def test_the_heldout_verdict_reads_the_gap_against_its_noise():
    """A fixed margin on the gap said "does worse" from one sample, and in ~20-30% of evals whose held-out rewards came
    from the training ones' own distribution; the gap is now read against Welch's interval over prompts."""
    from aquarelle.eval import verdicts

    rng = random.Random(0)
    train = _by_prompt({f"t{i}": [0.6 + rng.gauss(0, 0.05) for _ in range(4)] for i in range(6)})
    worse = _by_prompt({f"h{i}": [0.3 + rng.gauss(0, 0.05) for _ in range(2)] for i in range(6)}, "heldout")
    h = metrics.heldout(train, worse)
    lo, hi = h["gap_ci"]
    assert lo > metrics.HOLD_MARGIN and lo < h["gap"]["reward"] < hi and h["holds"] is False
    same = _by_prompt({f"h{i}": [0.6 + rng.gauss(0, 0.05) for _ in range(2)] for i in range(6)}, "heldout")
    assert metrics.heldout(train, same)["holds"] is True
    # past the margin by a little, with prompts that spread widely: within its noise
    noisy = _by_prompt({f"h{i}": [v] for i, v in enumerate([0.9, 0.1, 0.8, 0.2, 0.5, 0.6])}, "heldout")
    n = metrics.heldout(train, noisy)
    assert n["gap"]["reward"] > metrics.HOLD_MARGIN and n["gap_ci"][0] < metrics.HOLD_MARGIN and n["holds"] is None
    v = verdicts.heldout({"heldout": n})
    assert v["answer"] == "unclear" and v["text"].startswith("Cannot tell: the gap is past the margin but within")
    assert "95% interval" in v["text"] and "over 6 held-out prompts" in v["text"]
    one = metrics.heldout(train, _by_prompt({"h0": [0.4]}, "heldout"))
    v = verdicts.heldout({"heldout": one})
    assert one["holds"] is None and v["answer"] == "unclear" and "1 held-out prompt with a scored sample cannot" in v["text"]
    # enough held-out prompts, one training prompt (a short run's last third): the training side is named
    short = metrics.heldout(_by_prompt({"t0": [0.6, 0.5]}), same)
    assert short["holds"] is None and short["reason"].startswith("the training side has 1 prompt with a scored rollout")
    # the Welch interval by hand
    a, b = [0.5, 0.7, 0.6], [0.2, 0.4, 0.3, 0.1, 0.5]
    va, vb = np.var(a, ddof=1) / 3, np.var(b, ddof=1) / 5
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 4)
    from scipy import stats
    half = stats.t.ppf(0.975, df) * (va + vb) ** 0.5
    lo, hi = metrics.gap_interval(a, b)
    assert abs(lo - (0.3 - half)) < 1e-3 and abs(hi - (0.3 + half)) < 1e-3


def test_the_heldout_gap_names_two_temperatures():
    from aquarelle.eval import verdicts

    h = {"holds": True, "train": {"reward": 0.6}, "heldout": {"reward": 0.6, "prompts": 6}, "gap": {"reward": 0.0},
         "gap_ci": [-0.1, 0.1], "margin": 0.05, "train_source": "training rollouts (last third of steps)"}
    text = verdicts.heldout({"heldout": h, "sampling": {"temperature": 0.3, "run_temperature": 1.0}})["text"]
    assert "training rollouts at temperature 1, held-out samples at 0.3" in text
    text = verdicts.heldout({"heldout": h, "sampling": {"temperature": 1.0, "run_temperature": 1.0}})["text"]
    assert "temperature" not in text


def test_policy_comparison_win_rate(tmp_path):
    path = make_run(tmp_path / "r", steps=3)
    make_samples(path, trained=Synth(judge=(0.9, 0.9), gate_fail=(0, 0)), start=Synth(judge=(0.1, 0.1), gate_fail=(0, 0)),
                 prompts=HELDOUT_PROMPTS, split="heldout", k=4)
    s = load_samples(path / "eval_samples.jsonl")
    cmp_ = metrics.policy_comparison([r for r in s if r.policy == "trained"], [r for r in s if r.policy == "start"])
    assert cmp_["win_rate"] == 1.0 and cmp_["improvement"] > 0.3 and cmp_["prompts"] == 2
    assert (cmp_["better"], cmp_["level"], cmp_["worse"]) == (2, 0, 0)
    assert metrics.policy_comparison([], [])["reason"]


def test_a_tie_is_said_as_a_tie_not_as_half_a_win():
    """The demo's two held-out prompts: better on one, both 0 on the other. The verdict said "better on 75% of
    prompts" (ties count half in the rate); two ties at 0 read "better on 50%"."""
    from aquarelle.eval import verdicts

    def r(pid, reward, policy):
        return Rollout.from_dict({"step": 0, "prompt": pid, "reward": reward, "policy": policy})

    trained = [r("a", 0.45, "trained"), r("b", 0.0, "trained")]
    start = [r("a", 0.07, "start"), r("b", 0.0, "start")]
    cmp_ = metrics.policy_comparison(trained, start)
    assert cmp_["win_rate"] == 0.75 and (cmp_["better"], cmp_["level"], cmp_["worse"]) == (1, 1, 0)
    ev = {"heldout": {"holds": True, "trained_vs_start": cmp_, "heldout": {"reward": 0.2}, "train": {"reward": 0.1},
                      "gap": {"reward": -0.1}, "margin": 0.05}}
    text = verdicts.heldout(ev)["text"]
    assert "better on 1 of 2 prompts, worse on 0, level on 1." in text and "75%" not in text
    cmp_ = metrics.policy_comparison([r("a", 0.0, "trained")] * 2, [r("a", 0.0, "start")])
    ev["heldout"]["trained_vs_start"] = cmp_
    assert "better on 0 of 1 prompts, worse on 0, level on 1." in verdicts.heldout(ev)["text"]
    old = {k: v for k, v in cmp_.items() if k not in ("better", "level", "worse")}  # an eval.json from before
    ev["heldout"]["trained_vs_start"] = old
    assert "better on 50% of prompts (ties count half)." in verdicts.heldout(ev)["text"]


def test_rollout_parsing_is_lenient():
    r = Rollout.from_dict({"step": "3", "prompt": "x", "reward": float("nan"), "errors": 2,
                           "methods": ["fill", "fill", "circle"], "breakdown": {"judge": "0.5", "preference": None}})
    assert r.step == 3 and r.reward is None and len(r.errors) == 2
    assert r.methods == {"fill": 2, "circle": 1}
    assert r.breakdown["judge"] == 0.5 and r.breakdown["preference"] is None and r.breakdown["gate"] is None
    assert r.prompt_id == "x" and r.split == "train"


def test_load_run_rejects_what_is_not_a_run(tmp_path):
    with pytest.raises(RunError, match="does not exist"):
        load_run(tmp_path / "nope")
    (tmp_path / "d").mkdir()
    with pytest.raises(RunError, match="no rollouts.jsonl"):
        load_run(tmp_path / "d")
    (tmp_path / "d" / "rollouts.jsonl").write_text("")
    (tmp_path / "d" / "config.json").write_text("{not json")
    with pytest.raises(RunError, match="config.json is not valid JSON"):
        load_run(tmp_path / "d")


def test_weights_come_from_config_or_preset(tmp_path):
    run = load_run(make_run(tmp_path / "hps", steps=2, preset="hps-only"))
    assert run.weights["judge"] == 0 and run.weights["preference"] == 0.9
    assert run.preset == "hps-only" and run.action_space == "hf10" and run.mode == "tools"
    cfg = json.loads((run.path / "config.json").read_text())
    cfg["config"]["reward"]["weights"] = {"gate": 0.1, "length": 0.1, "judge": 0.4, "preference": 0.4}
    (run.path / "config.json").write_text(json.dumps(cfg))
    assert load_run(run.path).weights["judge"] == 0.4
    (run.path / "config.json").write_text(json.dumps({"preset": "hps-led", "action_space": "full"}))  # flat form
    flat = load_run(run.path)
    assert flat.weights["preference"] == 0.6 and flat.action_space == "full"


def test_training_metrics_are_json_and_finite(rising):
    tm = training_metrics(rising)

    def walk(x):
        if isinstance(x, float):
            assert math.isfinite(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(tm)
    assert set(tm) >= {"reward_trend", "term_attribution", "scorer_agreement", "diversity", "tool_adherence",
                       "bad_rollouts", "coverage"}


def test_invented_tool_names_in_error_text_are_counted():
    rs = [Rollout.from_dict({"step": 0, "prompt": "x", "methods": {"fill": 1, "circle": 1},
                             "errors": ["unknown tool 'paintSky'", "bleed is not in the hf10 action space "
                                        "(and it is not a p5.brush method)", "circle: radius must be > 0"]})]
    ta = metrics.tool_adherence(rs, "hf10")
    assert ta["invented_methods"] == {"paintSky": 1, "bleed": 1} and ta["outside_calls"] == 0
    assert ta["errors_per_episode"] == 3


def test_an_unscored_run_says_why_and_does_not_blame_the_policy(tmp_path):
    path = make_run(tmp_path / "r", steps=3)
    rows = [json.loads(x) for x in (path / "rollouts.jsonl").read_text().splitlines()]
    for r in rows:
        r.update(reward=None, breakdown={}, errors=["infrastructure: preference scorer at http://127.0.0.1:9: [Errno 111] refused"])
    (path / "rollouts.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    ev = evaluate(path, samples=0, progress=False)
    assert ev["reward_trend"]["steady"] is None and ev["reward_trend"]["n_scored"] == 0
    assert list(ev["reward_trend"]["unscored_reasons"].values()) == [len(rows)]
    v = ev["verdicts"]["improves"]
    assert v["answer"] == "unclear" and "refused" in v["text"]
    from rich.console import Console

    from aquarelle.eval.evaluate import print_table

    con = Console(record=True, width=400)
    print_table(ev, con)
    assert "[Errno 111] refused" in con.export_text()  # printed literally, not taken for rich markup
    ta = ev["tool_adherence"]
    assert ta["errors_per_episode"] == 0 and ta["infrastructure_errors"] == len(rows)


def test_across_prompt_distance_with_one_prompt_per_step(tmp_path):
    # training usually shows one prompt per step: distances across prompts are taken per third, not per step
    run = load_run(make_run(tmp_path / "r", steps=9, prompts=TRAIN_PROMPTS[:2]))
    one_per_step = [r for r in run.rollouts if r.group % 2 == 0]
    assert all(len({x.prompt_id for x in one_per_step if x.step == s}) == 1 for s in range(9))
    d = metrics.diversity(one_per_step, loader(run))
    assert d["across_prompts"] > 0.05 and None not in d["across_prompts_thirds"]
    assert d["collapsed"] is False


def test_a_flat_zero_run_is_not_called_steady(tmp_path):
    path = make_run(tmp_path / "r", steps=4, gate_fail=(1.0, 1.0))
    ev = evaluate(path, samples=0, progress=False)
    assert ev["reward_trend"]["thirds"]["total"] == [0.0, 0.0, 0.0]
    assert ev["reward_trend"]["steady"] is False and ev["verdicts"]["improves"]["answer"] == "no"


def test_blank_canvases_are_not_called_diverse(tmp_path):
    from PIL import Image

    path = make_run(tmp_path / "r", steps=3)
    run = load_run(path)
    for r in run.rollouts:
        Image.new("RGB", (48, 48), (246, 240, 226)).save(run.image_path(r))
    ev = evaluate(path, samples=0, progress=False)
    assert ev["diversity"]["blank_rate"] == 1.0 and ev["diversity"]["palette_entropy"] is None
    assert ev["verdicts"]["diverse"]["answer"] == "no" and "blank" in ev["verdicts"]["diverse"]["text"]


def test_late_blank_canvases_are_not_read_as_a_collapse_and_do_not_hide_one(tmp_path):
    """Two blank canvases are alike because nothing was painted: the demo's last step painted nothing in either
    group and the run was called "collapsed: paintings inside a GRPO group are near-identical (distance 0.000)"."""
    from PIL import Image

    def blank_late(run, every: bool) -> None:
        late = [r for r in run.rollouts if r.step >= 6]
        for r in late if every else late[::4]:  # (every: each one; else one in each group of 4)
            Image.new("RGB", (48, 48), (246, 240, 226)).save(run.image_path(r))

    diverse = load_run(make_run(tmp_path / "diverse", steps=9))
    blank_late(diverse, every=True)
    d = metrics.diversity(diverse.rollouts, loader(diverse))
    assert d["collapsed"] is None and "no pair of painted images" in d["reason"] and 0.3 < d["blank_rate"] < 0.9
    verdict = evaluate(tmp_path / "diverse", samples=0, progress=False)["verdicts"]["diverse"]
    assert verdict["answer"] == "unclear" and "blank paper" in verdict["text"] and "collapsed" not in verdict["text"]

    collapsed = load_run(make_run(tmp_path / "collapsed", steps=9, collapse_after=0.6))
    blank_late(collapsed, every=False)  # some of the late paintings blank, the others still all alike
    d = metrics.diversity(collapsed.rollouts, loader(collapsed))
    assert d["blank_rate"] > 0 and d["collapsed"] is True


def test_tool_calls_that_never_took_effect_are_read_from_the_transcript():
    completion = (
        '<tool_call>\n{"name": "fill", "arguments": {"color": "#aa3300", "opacity": 120}}\n</tool_call>'
        "<tool_response>ok</tool_response>"
        '<tool_call>\n{"name": "shape", "arguments": {"x": 3}}\n</tool_call>'
        "<tool_response>{'error': \"shape() got an unexpected keyword argument 'x'\"}</tool_response>"
        '<tool_call>\n{"name": "paintSky", "arguments": {}}\n</tool_call>'
        "<tool_response>{'error': \"unknown tool 'paintSky'\"}</tool_response>"
        '<tool_call>\n{"name": "rect", "arguments": {"x": 1, "y"'  # cut off by the token budget
    )
    r = Rollout.from_dict({"step": 0, "prompt": "x", "policy": "trained", "methods": {"fill": 1}, "n_calls": 1,
                           "errors": [], "completion": completion})
    assert r.transcript.attempts == 4 and r.transcript.malformed == 1 and len(r.transcript.failures) == 2
    ta = metrics.tool_adherence([r], "hf10")
    assert ta["tool_call_attempts"] == 4 and ta["malformed_calls"] == 1 and ta["failed_calls"] == 2
    assert ta["invented_methods"] == {"paintSky": 1}  # counted once, though the error names it too
    assert ta["outside_methods"] == {"rect": 1}
    assert ta["errors_per_episode"] == 3 and ta["infrastructure_errors"] == 0
    assert metrics.tool_adherence([Rollout.from_dict({"step": 0, "prompt": "x"})])["tool_call_attempts"] is None


def test_a_three_step_trend_needs_students_t_not_2():
    # per-step means 0.30, 0.40, 0.42: t = 2.6 but p = 0.23 (one degree of freedom); a pure-noise 3-step run
    # passed "monotone thirds and t > 2" 15% of the time
    rs = [Rollout.from_dict({"step": s, "prompt": "x", "reward": y}) for s, y in enumerate((0.30, 0.40, 0.42))]
    rt = metrics.reward_trend(rs)
    assert rt["trend"]["t_stat"] > 2 and rt["trend"]["p_value"] > 0.2
    assert rt["steady"] is False and rt["t_threshold"] > 6
    rs9 = [Rollout.from_dict({"step": s, "prompt": "x", "reward": 0.3 + 0.02 * s + 0.01 * (-1) ** s}) for s in range(9)]
    assert metrics.reward_trend(rs9)["steady"] is True and metrics.reward_trend(rs9)["t_threshold"] == 2.0


def _ar1_run(seed: int, n: int, phi: float = 0.7, sd: float = 0.05, rise: float = 0.0) -> list[Rollout]:
    """Per-step rewards 0.5 + a linear rise + AR(1) noise (marginal sd ``sd``): a GRPO run's slow wander."""
    rng = random.Random(seed)
    x, rs = rng.gauss(0, 1), []
    for s in range(n):
        rs.append(Rollout.from_dict({"step": s, "prompt": "x", "reward": 0.5 + rise * s / (n - 1) + sd * x}))
        x = phi * x + math.sqrt(1 - phi ** 2) * rng.gauss(0, 1)
    return rs


def test_a_flat_run_that_wanders_slowly_is_not_a_steady_rise():
    # no trend, AR(1) per-step noise (phi 0.7), thirds 0.486 -> 0.506 -> 0.533: the plain OLS t (2.96, independent
    # residuals) called it steady, as it did 11-18% of such simulated runs; the residuals' lag-1 autocorrelation
    # (0.76, 0.82 bias-corrected) counts its 100 steps as ~10 independent ones (Santer et al. 2000) and t drops to 0.8
    rt = metrics.reward_trend(_ar1_run(53, 100))
    tot = rt["thirds"]["total"]
    assert tot[0] < tot[1] < tot[2]  # monotone thirds: the t-statistic alone decides
    assert rt["steady"] is False and rt["trend"]["t_stat"] < rt["t_threshold"]
    assert rt["trend"]["lag1_autocorr"] > 0.5 and rt["trend"]["n_eff"] < 30 and rt["trend"]["p_value"] > 0.2
    # the same noise under a clear rise (+0.2 over the run) is still steady
    up = metrics.reward_trend(_ar1_run(53, 100, rise=0.2))
    assert up["steady"] is True and up["trend"]["t_stat"] > up["t_threshold"]


def test_a_run_that_wanders_too_slowly_for_a_t_statistic_is_unclear():
    from aquarelle.eval import verdicts

    # phi 0.97 over 30 steps: lag-1 autocorrelation 0.87 (1.0 bias-corrected), under 3 independent steps; no
    # t-statistic, and no "No" either
    rs = _ar1_run(1, 30, phi=0.97)
    rt = metrics.reward_trend(rs)
    assert rt["trend"]["n_eff"] < metrics.MIN_N_EFF and rt["trend"]["t_stat"] is None
    assert rt["steady"] is None and "independent" in rt["reason"] and rt["t_threshold"] is None
    v = verdicts.improves({"reward_trend": rt, "bad_rollouts": metrics.bad_rollouts(rs)})
    assert v["answer"] == "unclear" and "independent" in v["text"]


def _ar1_batch(seed: int, cases, runs: int, rise: float = 0.0) -> list[list[Rollout]]:
    """``runs`` runs of each (steps, phi) in ``cases``: per-step rewards 0.5 + a linear rise (in noise standard
    deviations over the run) + stationary AR(1) noise of sd 0.05, from one numpy seed."""
    rng, out = np.random.default_rng(seed), []
    for n, phi in cases:
        for _ in range(runs):
            x = np.empty(n)
            x[0] = rng.standard_normal()
            for t in range(1, n):
                x[t] = phi * x[t - 1] + math.sqrt(1 - phi ** 2) * rng.standard_normal()
            y = 0.5 + 0.05 * (x + rise * np.arange(n) / (n - 1))
            out.append([Rollout.from_dict({"step": s, "prompt": "x", "reward": float(v)}) for s, v in enumerate(y)])
    return out


def test_short_flat_runs_that_wander_read_steady_at_most_about_one_in_twenty():
    # r1 of a few residuals about a fitted line runs low (phi 0.7 over 20 steps: 0.39 on average), so Santer's n_eff
    # from r1 as measured counted such runs ~9 independent steps where they have 3.5: flat AR(1) runs of 10-30 steps
    # (phi 0.5, 0.7) read "Yes, steadily" in 58 of these 800 (5-12% a case in simulation); with r1 corrected for its
    # bias (``metrics.ar1_estimate``) 31, about the one-sided 5% the threshold stands for
    flat = _ar1_batch(0, [(n, phi) for n in (10, 15, 20, 30) for phi in (0.5, 0.7)], 100)
    steady = sum(metrics.reward_trend(rs)["steady"] is True for rs in flat)
    assert steady < 0.06 * len(flat)
    # the correction costs little where the steps are independent: a rise of 4 noise sds over 20 steps still reads
    # steady (97-99% in simulation, before and after)
    rising = _ar1_batch(1, [(20, 0.0)], 100, rise=4.0)
    assert sum(metrics.reward_trend(rs)["steady"] is True for rs in rising) >= 90


def test_the_bias_corrected_lag1_autocorrelation():
    assert metrics.ar1_estimate(-0.4, 10) == 0.0 and metrics.ar1_estimate(0.9, 10) == 1.0
    assert metrics.ar1_estimate(0.386, 20) == pytest.approx(0.648, abs=1e-3)  # phi 0.7's mean r1 at 20 steps
    assert metrics.ar1_estimate(-0.2, 4) == 0.0 and metrics.ar1_estimate(0.3, 9) == 0.3  # too few: as measured
    assert metrics.trend_stat(range(9), [0.5, 0.7, 0.4, 0.9, 0.6, 0.8, 1.0, 0.7, 1.1])["lag1_corrected"] is None
    tr = metrics.trend_stat(range(20), [0.5 + 0.01 * math.sin(s / 3) for s in range(20)])
    assert tr["lag1_corrected"] > tr["lag1_autocorr"] > 0.5
    assert tr["n_eff"] == pytest.approx(20 * (1 - tr["lag1_corrected"]) / (1 + tr["lag1_corrected"]), abs=0.1)


def test_scorer_changes_are_compared_on_the_same_paintings():
    # both scorers track quality exactly; the preference server failed on the better half of the late rollouts
    # (reward None, judge kept): unpaired means read that as judge +0.08 and preference -0.12, "gaming the judge"
    rs = []
    for s in range(6):
        for i in range(4):
            q = 0.3 + 0.02 * s + 0.2 * i
            down = s >= 4 and i >= 2
            rs.append(Rollout.from_dict({"step": s, "prompt": f"p{s}", "group": s, "reward": None if down else 0.5,
                                         "breakdown": {"judge": q, "preference": None if down else q}}))
    sa = metrics.scorer_agreement(rs)
    assert sa["judge_change"] == sa["preference_change"]
    assert sa["gamed"] is False and sa["flags"] == []


def test_policy_comparison_is_paired_by_prompt_when_counts_differ():
    # the same policy twice, but unscored samples (infrastructure) leave the trained side mostly on the easy prompt
    # and the start side mostly on the hard one: pooled means said +0.36
    def r(pid, reward, policy):
        return Rollout.from_dict({"step": 0, "prompt": pid, "reward": reward, "policy": policy})

    trained = [r("easy", 0.8, "trained")] * 4 + [r("hard", 0.2, "trained")] + [r("hard", None, "trained")] * 3
    start = [r("easy", 0.8, "start")] + [r("easy", None, "start")] * 3 + [r("hard", 0.2, "start")] * 4
    cmp_ = metrics.policy_comparison(trained, start)
    assert cmp_["improvement"] == 0 and cmp_["win_rate"] == 0.5
    assert cmp_["trained_reward"] == cmp_["start_reward"] == 0.5


def test_across_prompt_distance_is_not_taken_from_the_first_paintings_only(tmp_path):
    # the 4-per-prompt cap kept each window's first paintings: a run that collapsed half way showed the same
    # run-wide distance (0.172) as one that never did, and a late collapse was read from the last third's first step
    run = load_run(make_run(tmp_path / "r", steps=9, collapse_after=0.5))
    load = loader(run)
    items = [(r, load(r)[0]) for r in run.rollouts]
    d = metrics.diversity(run.rollouts, load)
    every_pair = metrics._across_prompts(items, lambda r: 0, max_per_prompt=10 ** 6)[0]
    assert d["across_prompts"] == pytest.approx(every_pair, abs=0.02)
    late = load_run(make_run(tmp_path / "late", steps=9, collapse_after=0.8))
    load = loader(late)
    third = {r.step: i for i, p in enumerate(metrics.thirds(late.rollouts)) for r in p}
    every_pair = metrics._across_prompts([(r, load(r)[0]) for r in late.rollouts], lambda r: third[r.step], 10 ** 6)[2]
    assert metrics.diversity(late.rollouts, load)["late_across_prompts"] == pytest.approx(every_pair, abs=0.02)


def test_a_training_transcript_cut_at_its_length_cap_has_no_malformed_call():
    # training keeps 6000 characters of each completion: the call cut off there got "no response" and every clean
    # long episode counted one malformed call and one error (100% of episodes with errors)
    exchange = ('<tool_call>{"name": "circle", "arguments": {"x": %d, "y": 200, "r": 40}}</tool_call>\n'
                "<tool_response>ok: circle drawn, 12%% of the canvas painted so far, 3 colours</tool_response>")
    text = "\n".join(exchange % (100 + i) for i in range(60))
    assert len(text) > 6000
    r = Rollout.from_dict({"step": 0, "prompt": "x", "reward": 0.5, "methods": {"circle": 60}, "n_calls": 60,
                           "errors": [], "completion": text[:6000]})
    ta = metrics.tool_adherence([r], "hf10")
    assert ta["malformed_calls"] == 0 and ta["errors_per_episode"] == 0 and ta["tool_call_attempts"] > 30
    sampled = Rollout.from_dict({"step": 0, "prompt": "x", "policy": "trained", "completion": text[:6000]})
    # an eval sample keeps its whole completion: its last call is counted (well formed, it never ran)
    assert sampled.transcript.attempts == r.transcript.attempts + 1 and sampled.transcript.unanswered == 1


def test_bad_rollouts_and_attribution_use_the_reward_trends_thirds():
    # 7 steps, the last unscored: thirds of the scored steps ([0,1] [2,3] [4,5]) said 100% bad paintings in a first
    # third whose reward (steps 0-2) is 0.20 and holds a 0.3, and a change of 0.55 beside the trend's 0.7
    y = {0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4, 4: 0.5, 5: 0.9, 6: None}
    rs = [Rollout.from_dict({"step": s, "prompt": "x", "group": s, "reward": y[s], "breakdown": {"gate": 1.0, "judge": y[s]}})
          for s in range(7) for _ in range(4)]
    rt = metrics.reward_trend(rs)
    assert rt["thirds"]["total"] == [0.2, 0.45, 0.9] and rt["change"] == pytest.approx(0.7)
    assert metrics.bad_rollouts(rs)["thirds"] == [pytest.approx(2 / 3, abs=1e-4), 0.0, 0.0]
    ta = metrics.term_attribution(rs, {"gate": 0.0, "length": 0.0, "judge": 1.0, "preference": 0.0})
    assert ta["change"] == pytest.approx(0.7) and ta["term_change"]["judge"] == pytest.approx(0.7)


def test_the_trained_vs_start_improvement_has_a_seeded_interval_over_prompts():
    from aquarelle.eval import verdicts

    def r(pid, reward, policy):
        return Rollout.from_dict({"step": 0, "prompt": pid, "reward": reward, "policy": policy})

    # clearly better on each of 8 prompts: the interval is above 0, and a rerun gives the same one
    trained = [r(f"p{i}", 0.5 + 0.01 * i, "trained") for i in range(8)]
    start = [r(f"p{i}", 0.2 + 0.02 * i, "start") for i in range(8)]
    cmp_ = metrics.policy_comparison(trained, start)
    lo, hi = cmp_["improvement_ci"]
    assert 0 < lo < cmp_["improvement"] < hi
    assert metrics.policy_comparison(trained, start)["improvement_ci"] == [lo, hi]
    text = verdicts.heldout({"heldout": {"trained_vs_start": cmp_, "reason": "x"}, "sampling": {}})["text"]
    assert "95% interval" in text and "so it is real" in text
    # better on half the prompts by as much as it is worse on the rest: the interval holds 0
    mixed = metrics.policy_comparison(trained, [r(f"p{i}", 0.5 + 0.01 * i + (0.3 if i % 2 else -0.3), "start")
                                                for i in range(8)])
    lo, hi = mixed["improvement_ci"]
    assert lo < 0 < hi
    assert "may be chance" in verdicts.heldout({"heldout": {"trained_vs_start": mixed}, "sampling": {}})["text"]
    # two prompts: no interval, and the verdict says why
    two = metrics.policy_comparison(trained[:2], start[:2])
    assert two["improvement_ci"] is None
    assert "too few prompts (2)" in verdicts.heldout({"heldout": {"trained_vs_start": two}, "sampling": {}})["text"]


def test_well_formed_calls_after_the_last_turn_are_unanswered_not_malformed():
    # the demo's training transcripts: a turn of calls, their responses, then a turn written when no turn was left
    # to run it (TRL's max_tool_calling_iterations / completion budget). It counted 4 "never parsed" calls and
    # 4 errors for a clean episode
    call = '<tool_call>{"name": "circle", "arguments": {"x": %d, "y": 200, "r": 40}}</tool_call>\n'
    text = (call % 1 + call % 2 + "<tool_response>Painted circle</tool_response>\n" * 2
            + "".join(call % i for i in range(3, 7)))
    r = Rollout.from_dict({"step": 0, "prompt": "x", "reward": 0.5, "methods": {"circle": 2}, "n_calls": 2,
                           "errors": [], "completion": text})
    assert (r.transcript.attempts, r.transcript.malformed, r.transcript.unanswered) == (6, 0, 4)
    ta = metrics.tool_adherence([r], "hf10")
    assert ta["malformed_calls"] == 0 and ta["unanswered_calls"] == 4 and ta["errors_per_episode"] == 0
    from aquarelle.eval import verdicts

    assert "4 came after the episode's last turn and never ran" in verdicts._tools_text(ta)[1]
    # a last turn that does not parse is the model's: the trainer ran none of it
    broken = text + '<tool_call>\n{"name": "fillIndex", "arguments": 0.30}}\n</tool_call>'
    r = Rollout.from_dict({"step": 0, "prompt": "x", "completion": broken})
    assert (r.transcript.malformed, r.transcript.unanswered) == (5, 0)
    cut = text + '<tool_call>{"name": "rect", "arguments": {"x": 1, "y"'  # cut off mid-call by the token budget
    assert Rollout.from_dict({"step": 0, "prompt": "x", "policy": "trained", "completion": cut}).transcript.malformed == 5


def test_the_gaming_flag_needs_more_than_chance_divergence():
    # judge and preference with independent noise (sd 0.2) and each its own view of a group's prompt (sd 0.1), 3 steps
    # of 4 groups of 4: the size of the moves alone flagged 30% of such pure-noise runs as gamed, and a test per
    # painting (a group's paintings share the prompt) 8-10%; a real opposite drift must still be flagged
    import random

    def run(seed, drift):
        rng = random.Random(seed)
        rs = []
        for st in range(3):
            for g in range(4):
                oj, op = rng.gauss(0, 0.1), rng.gauss(0, 0.1)
                for i in range(4):
                    j = min(1.0, max(0.0, 0.5 + oj + rng.gauss(0, 0.2) - drift * st / 2))
                    p = min(1.0, max(0.0, 0.3 + op + rng.gauss(0, 0.2) + drift * st / 2))
                    rs.append(Rollout.from_dict({"step": st, "prompt": f"p{st}-{g}", "group": 4 * st + g,
                                                 "reward": 0.6 * j + 0.3 * p,
                                                 "breakdown": {"judge": j, "preference": p, "gate": 1.0,
                                                               "length": 0.5}}))
        return metrics.scorer_agreement(rs)

    noise = [run(s, 0.0) for s in range(300)]
    assert sum(r["gamed"] is True for r in noise) / len(noise) <= 0.06
    unclear = next(r for r in noise if r["gamed"] is None and not r.get("alone"))
    assert "within chance" in unclear["reason"] and unclear["divergence_p"] >= 0.05
    drifted = [run(s, 0.3) for s in range(100)]
    assert sum(r["gamed"] is True for r in drifted) / len(drifted) >= 0.9
    assert all("p = " in f for r in drifted for f in r["flags"])


def test_one_scorer_rising_alone_beyond_chance_is_not_said_to_move_together():
    """Judge +0.01, preference +0.21, p = 0.0001 read "No sign of it: the scorers move together"."""
    from aquarelle.eval import verdicts

    rs = [Rollout.from_dict({"step": st, "prompt": f"p{g}", "group": 4 * st + g, "reward": 0.5,
                             "breakdown": {"judge": 0.5 + 0.01 * (g % 2), "preference": 0.3 + 0.1 * st + 0.01 * g,
                                           "gate": 1.0, "length": 0.5}})
          for st in range(3) for g in range(4) for _ in range(2)]
    sa = metrics.scorer_agreement(rs)
    assert sa["gamed"] is None and "the preference rose (+0.200) while the judge stayed level" in sa["alone"]
    v = verdicts.gamed({"scorer_agreement": sa, "weights": {"judge": 0.6, "preference": 0.3}})
    assert v["answer"] == "unclear" and v["text"].startswith("Cannot rule it out: the preference rose")


def test_the_interval_is_students_t_and_says_chance_at_the_rate_it_claims():
    """The percentile bootstrap over 5-8 prompts (eval's default spreads 8 samples over 8) was too narrow: with no
    true change it called 14% of simulated evals real or worse, where a 95% interval calls 5%."""
    import random

    import numpy as np

    d = [0.1, -0.05, 0.2, 0.0, 0.15]
    lo, hi = metrics.improvement_interval(d)
    m, sd = float(np.mean(d)), float(np.std(d, ddof=1))
    assert abs(lo - (m - 2.776 * sd / 5 ** 0.5)) < 1e-3 and abs(hi - (m + 2.776 * sd / 5 ** 0.5)) < 1e-3
    rng = random.Random(0)
    wrong = 0
    for _ in range(400):
        lo, hi = metrics.improvement_interval([rng.gauss(0.0, 0.2) for _ in range(6)])
        wrong += lo > 0 or hi < 0
    assert wrong / 400 < 0.09  # the bootstrap: ~14%
    assert metrics.improvement_interval([float("inf")] * 6) is None  # never half an interval


def test_the_sampled_policy_gaming_or_collapsing_is_said_by_the_verdicts(tmp_path):
    """The gaming and diversity verdicts read the training rollouts only: a trained policy whose held-out samples
    scored 0.75 against the start's 0.45 with the judge at 0.05 against 0.5, every painting one image, got "No sign
    of it" and "Yes" (diverse)."""
    from aquarelle.eval import verdicts

    trained = {"reward": 0.75, "judge": 0.05, "preference": 0.99, "painted_within_prompt": 0.0,
               "painted_across_prompts": 0.0}
    start = {"reward": 0.45, "judge": 0.5, "preference": 0.4, "painted_within_prompt": 0.2,
             "painted_across_prompts": 0.2}
    checks = metrics.sampled_checks(trained, start)
    assert len(checks["gaming_flags"]) == 1 and "may be gaming preference" in checks["gaming_flags"][0]
    assert len(checks["collapse_reasons"]) == 2
    calm = {"scorer_agreement": {"gamed": False, "judge_change": 0.2, "preference_change": 0.2, "spearman": 0.6,
                                 "flags": []}, "weights": {"judge": 0.6}}
    ev = {**calm, "sampled_checks": checks}
    v = verdicts.gamed(ev)
    assert v["answer"] == "yes" and v["text"].startswith("Likely, in the samples: on held-out samples")
    assert "In training: no sign of it" in v["text"]
    assert verdicts.gamed({**calm, "sampled_checks": metrics.sampled_checks(start, start)})["answer"] == "no"
    div = {"diversity": {"collapsed": False, "within_group": 0.2, "within_group_thirds": None, "across_prompts": 0.2,
                         "palette_entropy": 1.5, "duplicate_code_rate": 0.0, "blank_rate": 0.0}}
    d = verdicts.diverse({**div, "sampled_checks": checks})
    assert d["answer"] == "no" and "different held-out prompts get the same painting" in d["text"]
    assert verdicts.diverse({**div, "sampled_checks": metrics.sampled_checks(start, start)})["answer"] == "yes"


def test_scorers_moving_apart_in_the_samples_are_a_flag_only_beyond_their_noise():
    """One pair of paintings with the preference +0.10 and the judge -0.10 read "Likely, in the samples", and identical
    policies under scorer noise were flagged in ~30% of evals of 2 prompts x 2 samples."""
    from aquarelle.eval import verdicts

    def rs(policy, judge, pref):
        return [Rollout.from_dict({"step": 0, "prompt": f"h{i}", "reward": 0.5, "policy": policy, "split": "heldout",
                                   "breakdown": {"judge": j, "preference": p}}) for i, (j, p) in enumerate(zip(judge, pref))]

    calm = {"scorer_agreement": {"gamed": False, "judge_change": 0.2, "preference_change": 0.2, "spearman": 0.6,
                                 "flags": []}, "weights": {"judge": 0.6}}
    trained, start = {"judge": 0.4, "preference": 0.6}, {"judge": 0.5, "preference": 0.5}
    one = metrics.sampled_checks(trained, start, paired=[rs("trained", [0.4], [0.6]), rs("start", [0.5], [0.5])])
    assert not one["gaming_flags"] and "over 1 prompt: too few to tell" in one["gaming_hints"][0]
    v = verdicts.gamed({**calm, "sampled_checks": one})
    assert v["answer"] == "unclear" and v["text"].startswith("Cannot rule it out, in the samples")
    # six prompts, every one moving the same way: beyond noise
    t6 = rs("trained", [0.40, 0.41, 0.39, 0.40, 0.42, 0.38], [0.60, 0.61, 0.59, 0.62, 0.60, 0.58])
    s6 = rs("start", [0.50] * 6, [0.50] * 6)
    six = metrics.sampled_checks(trained, start, paired=[t6, s6])
    assert len(six["gaming_flags"]) == 1 and "95% intervals over 6 prompts" in six["gaming_flags"][0]
    assert verdicts.gamed({**calm, "sampled_checks": six})["answer"] == "yes"
    # six prompts whose moves scatter around the same means: within noise
    t6n = rs("trained", [0.1, 0.7, 0.2, 0.8, 0.3, 0.3], [0.9, 0.3, 0.8, 0.2, 0.7, 0.7])
    noisy = metrics.sampled_checks(trained, start, paired=[t6n, s6])
    assert not noisy["gaming_flags"] and "within their noise over 6 prompts" in noisy["gaming_hints"][0]


def test_a_scorer_weighed_0_is_said_never_run_not_yet_to_come():
    """hps-only never runs the judge (weight 0): "Cannot tell yet (one scorer has no scores ...)" promised what more
    steps never bring."""
    from aquarelle.eval import verdicts

    sa = {"gamed": None, "reason": "one scorer has no scores in the first or last third", "spearman": None,
          "judge_change": None, "preference_change": 0.4}
    text = verdicts.gamed({"scorer_agreement": sa, "weights": {"judge": 0.0, "preference": 0.9}})["text"]
    assert text.startswith("Cannot tell: the judge has weight 0 in this run's weights, so it was never run")
    assert "yet" not in text


def test_some_unscored_rollouts_or_samples_are_said_beside_the_verdict():
    """Half the training rollouts unscored (judge unreachable) read "Yes, steadily" and nothing more; unscored
    samples were named only when none was scored."""
    from aquarelle.eval import verdicts

    def r(step, reward, **kw):
        return Rollout.from_dict({"step": step, "prompt": f"p{step % 3}", "reward": reward, "group": step, **kw})

    rs = [r(s, 0.1 * s) for s in range(6)] + [r(s, None, errors=["infrastructure: judge unreachable"])
                                               for s in range(6)]
    ev = {"reward_trend": metrics.reward_trend(rs), "bad_rollouts": metrics.bad_rollouts(rs)}
    assert "6 of 12 training rollouts were not scored (infrastructure: judge unreachable (6x))." in \
        verdicts.improves(ev)["text"]
    ev = {"heldout": {"holds": True, "heldout": {"reward": 0.5}, "train": {"reward": 0.5}, "gap": {"reward": 0.0},
                      "margin": 0.05},
          "sampling": {"n": 24, "unscored": 3, "unscored_reasons": {"infrastructure: preference timed out": 3}}}
    assert verdicts.heldout(ev)["text"].endswith(
        " 3 of 24 samples were not scored (infrastructure: preference timed out (3x)).")


def test_an_absurd_reward_is_unscored_with_its_reason_not_a_crash(tmp_path):
    """Two rewards of 8e307 on one prompt overflowed their mean: eval failed with a traceback; 1e308 read as "no
    scored rollouts on held-out prompts"."""
    r = Rollout.from_dict({"step": 0, "prompt": "p", "reward": 8e307, "policy": "trained"})
    assert r.reward is None and "out of range" in metrics.unscored_reasons([r]).popitem()[0]
    assert Rollout.from_dict({"step": 0, "prompt": "p", "reward": 2.5}).reward == 2.5  # custom weights reach past 1


def test_held_out_reward_weighs_each_prompt_alike_as_the_comparison_does():
    """One verdict sentence said 0.63 on held-out (pooled) and 0.50 (per prompt) for the same samples, where
    unscored samples left some prompts with fewer."""
    def r(pid, reward, policy="trained"):
        return Rollout.from_dict({"step": 0, "prompt": pid, "reward": reward, "policy": policy})

    trained = [r(p, 0.9) for p in "abc" for _ in range(2)] + [r(p, 0.1) for p in "def"] + [r(p, None) for p in "def"]
    start = [r(p, 0.5, "start") for p in "abcdef" for _ in range(2)]
    assert metrics.summary(trained)["reward"] == 0.5
    assert metrics.policy_comparison(trained, start)["trained_reward"] == 0.5


def test_held_out_samples_of_trained_prompts_and_repeated_lines_are_left_out_and_said(tmp_path):
    """A samples file from elsewhere: "held-out" samples of prompts the run trained on were compared as held-out
    ("so it is real"), and a line written ten times weighed ten times."""
    run = make_run(tmp_path / "run", steps=6)
    good, bad = Synth(judge=(0.7, 0.7), gate_fail=(0, 0)), Synth(judge=(0.3, 0.3), gate_fail=(0, 0))
    path = make_samples(run, trained=good, start=bad, prompts=HELDOUT_PROMPTS, split="heldout", k=4)
    make_samples(run, trained=good, start=bad, prompts=TRAIN_PROMPTS[:1], split="heldout", k=2, seed=5, append=True)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines + [lines[0]] * 9) + "\n")  # one line again, nine times
    ev = evaluate(run, samples_file=path, progress=False)
    h = ev["heldout"]
    assert h["trained_on"] == [TRAIN_PROMPTS[0][1]] and ev["sampling"]["n"] == len(lines)
    assert h["heldout"]["n"] == 4 and h["start"]["n"] == 4  # only the prompts never trained on
    text = ev["verdicts"]["heldout"]["text"]
    assert f"1 prompt was sampled as held-out but trained on, and left out: {TRAIN_PROMPTS[0][1]!r}." in text
    assert json.loads(json.dumps(ev)) == ev


def test_a_samples_files_source_is_recorded_where_a_report_finds_it_again(tmp_path, monkeypatch):
    """eval.json kept ``--samples-file`` as typed: a relative path resolved only from the folder eval ran in, so a
    report built elsewhere could not find the samples its verdicts rest on."""
    run = make_run(tmp_path / "run", steps=6)
    good, bad = Synth(judge=(0.7, 0.7), gate_fail=(0, 0)), Synth(judge=(0.3, 0.3), gate_fail=(0, 0))
    inside = make_samples(run, trained=good, start=bad, prompts=HELDOUT_PROMPTS, split="heldout", k=2)
    outside = tmp_path / "elsewhere" / "s.jsonl"
    outside.parent.mkdir()
    outside.write_text(inside.read_text())
    monkeypatch.chdir(tmp_path)
    assert evaluate(run, samples_file="elsewhere/s.jsonl", progress=False)["sampling"]["source"] == str(outside)
    assert evaluate(run, samples_file="run/eval_samples.jsonl", progress=False)["sampling"]["source"] == \
        "eval_samples.jsonl"  # inside the run: relative to it, so the run may move


def test_a_blank_sample_beside_a_small_painting_is_not_a_collapse(tmp_path):
    """The fresh-clone demo's two held-out samples: one blank canvas, one painting covering 8.5%. Their thumbnails
    are 0.014 apart, and the new check said "different held-out prompts get the same painting"; training's own
    check compares only paintings that show paint, and so does this one now."""
    from pathlib import Path

    import numpy as np
    from PIL import Image

    blank = np.full((64, 64, 3), 255, np.uint8)
    small = blank.copy()
    small[28:38, 28:38] = (200, 40, 60)
    paths = {}
    for name, img in (("blank", blank), ("small", small)):
        paths[name] = tmp_path / f"{name}.png"
        Image.fromarray(img).save(paths[name])
    rs = [Rollout.from_dict({"step": 0, "prompt": name, "reward": 0.1, "policy": "trained", "image": str(p)})
          for name, p in paths.items()]
    s = metrics.summary(rs, lambda r: images.load(Path(r.image)))
    assert s["across_prompts"] < metrics.COLLAPSE_ACROSS  # all images: "the same painting"
    assert s["painted_across_prompts"] is None  # one painting that shows paint: nothing to compare
    assert metrics.sampled_checks(s, None)["collapse_reasons"] == []
    twice = metrics.summary([*rs, Rollout.from_dict({"step": 0, "prompt": "again", "reward": 0.1, "policy": "trained",
                                                      "image": str(paths["small"])})], lambda r: images.load(Path(r.image)))
    assert metrics.sampled_checks(twice, None)["collapse_reasons"]  # two prompts, one painting: a collapse


PADDING = {"gate": 0.05, "length": 0.3, "judge": 0.4, "preference": 0.25}


def test_a_steady_rise_carried_by_the_length_term_is_not_called_better_quality(tmp_path):
    # judge and preference flat, the length term 0.1 -> 0.9 at weight 0.3: the reward rises steadily by ~0.24
    pad = evaluate(make_run(tmp_path / "pad", steps=9, weights=PADDING, length=(0.1, 0.9), judge=(0.5, 0.5),
                            preference=(0.6, 0.6), gate_fail=(0.0, 0.0), noise=0.02, seed=4), samples=0,
                   progress=False)
    assert pad["reward_trend"]["steady"] is True
    tc = pad["term_attribution"]["term_change"]
    assert tc["length"] > 0.15 and abs(tc["judge"] + tc["preference"]) < 0.05
    v = pad["verdicts"]["improves"]
    assert v["answer"] == "no" and v["text"].startswith("Reward rose steadily, but not through quality")
    assert "padding its code for the length term" in v["text"]
    # the same weights with the judge rising too: quality carries it
    good = evaluate(make_run(tmp_path / "good", steps=9, weights=PADDING, length=(0.5, 0.5), judge=(0.3, 0.8),
                             preference=(0.6, 0.6), gate_fail=(0.0, 0.0), noise=0.02, seed=4), samples=0,
                    progress=False)
    assert good["verdicts"]["improves"]["answer"] == "yes"
    assert good["verdicts"]["improves"]["text"].startswith("Yes, steadily: ")


def test_a_steady_rise_with_no_quality_scorer_weighed_cannot_say_quality_improved(tmp_path):
    w = {"gate": 0.5, "length": 0.5, "judge": 0.0, "preference": 0.0}
    ev = evaluate(make_run(tmp_path / "r", steps=9, weights=w, length=(0.1, 0.9), gate_fail=(0.0, 0.0), noise=0.02,
                           seed=4), samples=0, progress=False)
    assert ev["reward_trend"]["steady"] is True
    v = ev["verdicts"]["improves"]
    assert v["answer"] == "unclear" and "quality was never measured" in v["text"]


def test_a_preference_rising_with_painted_coverage_while_the_judge_stays_flat_is_named(tmp_path):
    # the scorers do not move apart (the judge does not fall), so the divergence check alone said "No sign of it";
    # the preference rising alone beyond chance cannot rule gaming out, and painted coverage rising with it is named
    path = make_run(tmp_path / "r", steps=9, judge=(0.5, 0.5), preference=(0.4, 0.8), gate_fail=(0.0, 0.0),
                    noise=0.03, seed=5)
    plain = evaluate(path, samples=0, progress=False)
    assert plain["verdicts"]["gamed"]["answer"] == "unclear", plain["verdicts"]["gamed"]
    assert "while the judge stayed level" in plain["verdicts"]["gamed"]["text"]
    assert "flooding" not in plain["verdicts"]["gamed"]["text"]
    rows = [json.loads(x) for x in (path / "rollouts.jsonl").read_text().splitlines()]
    for r in rows:  # paint for its own sake: coverage follows the preference
        r["coverage"] = round(r["breakdown"]["preference"] - 0.2, 4)
    (path / "rollouts.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    ev = evaluate(path, samples=0, progress=False)
    assert ev["coverage"]["change"] > 0.3 and ev["coverage"]["corr_preference"] > 0.9
    v = ev["verdicts"]["gamed"]
    assert v["answer"] == "unclear" and v["text"].startswith("Cannot rule it out: the preference rose (+0.")
    assert "Also: the preference rose" in v["text"] and "the policy may be flooding the canvas" in v["text"]


def test_evaluate_checks_its_arguments_as_the_command_line_does(tmp_path):
    path = make_run(tmp_path / "r", steps=3)
    with pytest.raises(ValueError, match="^prompts must be heldout, train or all, not 'nope'"):
        evaluate(path, prompts="nope", samples=0, progress=False)
    for bad in (-1, 1001, 2.5, True):
        with pytest.raises(ValueError, match="^samples must be a whole number 0-1000, not "):
            evaluate(path, samples=bad, progress=False)


def test_repeated_code_counts_every_painting_that_shares_its_program():
    """Two paintings of one program in every group of two read "identical code in a group 50%"."""
    assert metrics._repeated_code([["a", "a"], ["b", "b"]]) == 1.0
    assert metrics._repeated_code([["a", "a", "b", "c"]]) == 0.5
    assert metrics._repeated_code([["a"], []]) is None


def test_a_rise_the_steps_cannot_tell_from_noise_is_unclear_not_no():
    """At the demo's 3 steps (t must pass 6.31) a true rise of +0.2 read "No" in 77% of simulated runs."""
    from aquarelle.eval import verdicts

    rt = {"n_rollouts": 12, "n_scored": 12, "thirds": {"total": [0.2, 0.3, 0.4], "judge": [0.2, 0.3, 0.4],
                                                        "preference": [0.2, 0.3, 0.4]},
          "trend": {"t_stat": 3.0}, "t_threshold": 6.314, "steady": False, "change": 0.2}
    ev = {"reward_trend": rt, "bad_rollouts": {"thirds": [0.5, 0.4, 0.3]}}
    v = verdicts.improves(ev)
    assert v["answer"] == "unclear" and v["text"].startswith("It rose, but not significantly")
    rt.update(trend={"t_stat": 8.0}, thirds={**rt["thirds"], "total": [0.2, 0.5, 0.4]})  # significant, not steady
    assert verdicts.improves(ev)["answer"] == "no" and verdicts.improves(ev)["text"].startswith("It rose, but not steadily")


def test_a_rise_from_fewer_failed_paintings_alone_is_said_so(tmp_path):
    """Crashes 50% -> 0% with the painted paintings' judge and preference flat read "Yes, steadily" (81%)."""
    import random

    rng = random.Random(0)
    rs = []
    for st in range(9):
        for i in range(8):
            ok = rng.random() >= 0.5 * (1 - st / 8)
            j, p = (0.5 + rng.gauss(0, 0.02), 0.5 + rng.gauss(0, 0.02)) if ok else (0.0, 0.0)
            rs.append(Rollout.from_dict({"step": st, "prompt": f"p{i % 2}", "group": 2 * st + i // 4,
                                         "reward": (0.05 + 0.05 * 0.5 + 0.6 * j + 0.3 * p) if ok else 0.0,
                                         "breakdown": {"gate": float(ok), "length": 0.5 if ok else 0.0,
                                                       "judge": j, "preference": p}}))
    w = {"gate": 0.05, "length": 0.05, "judge": 0.6, "preference": 0.3}
    ev = {"weights": w, "reward_trend": metrics.reward_trend(rs), "term_attribution": metrics.term_attribution(rs, w),
          "bad_rollouts": metrics.bad_rollouts(rs)}
    assert ev["reward_trend"]["steady"] is True
    from aquarelle.eval import verdicts

    v = verdicts.improves(ev)
    assert v["answer"] == "yes" and v["text"].startswith("Yes, steadily, through fewer failed paintings"), v


def test_small_paintings_are_not_called_collapsed_by_their_distance_and_one_program_is(tmp_path):
    """Diverse random blobs over 3.5% of the canvas are 0.0195 apart (under COLLAPSE_WITHIN) and were "collapsed";
    eval paints each sample with its own seed, so one program for every sample drew apart and was not flagged."""
    assert "median 3.0% of the canvas" in metrics._too_small_to_compare(
        [Rollout.from_dict({"step": 0, "prompt": "a", "coverage": c}) for c in (0.02, 0.03, 0.04)])
    assert metrics._too_small_to_compare([Rollout.from_dict({"step": 0, "prompt": "a", "coverage": 0.3})]) is None
    same = [Rollout.from_dict({"step": 0, "prompt": f"h{i // 2}", "code": "function setup() {}  draw()", "policy":
                               "trained", "split": "heldout"}) for i in range(4)]
    checks = metrics.sampled_checks({"reward": 0.5}, None, paired=[same, []])
    assert any("one program for every sample of a held-out prompt (2 of 2" in c for c in checks["collapse_reasons"])
    assert any("the same program for all 2 held-out prompts" in c for c in checks["collapse_reasons"])
    apart = [Rollout.from_dict({"step": 0, "prompt": r.prompt_id, "code": f"draw{i}()", "policy": "trained",
                                "split": "heldout"}) for i, r in enumerate(same)]
    assert metrics.sampled_checks({"reward": 0.5}, None, paired=[apart, []])["collapse_reasons"] == []


def test_a_run_that_fell_back_at_its_end_is_not_steady():
    """A 500-step run that rose to 0.8 and sank back to its start over its last 10% read "Yes, steadily" (thirds
    0.46 -> 0.63 -> 0.70, slope t = 46.6): the last tenth is weighed against the best window of as many steps."""
    from aquarelle.eval import verdicts

    def run(shape, n=500, seed=0):
        rng = random.Random(seed)
        out = []
        for s in range(1, n + 1):
            mu = shape(s / n)
            for g in range(4):
                r = min(1.0, max(0.0, mu + rng.gauss(0, 0.1)))
                out.append(Rollout.from_dict({"step": s, "group": s, "prompt_id": "p", "reward": r,
                                              "breakdown": {"gate": 1.0, "length": 0.5, "judge": r, "preference": r}}))
        return out

    fell = metrics.reward_trend(run(lambda t: 0.3 + 0.5 * t / 0.9 if t < 0.9 else 0.8 - 5 * (t - 0.9)))
    assert fell["steady"] and fell["end"]["fell"] and fell["end"]["window"] == 50
    v = verdicts._improves({"reward_trend": fell, "bad_rollouts": {"thirds": [0, 0, 0]}, "weights": {}})
    assert v["answer"] == "no" and v["text"].startswith("It rose, then fell back at the end: the last 50 steps")
    for shape in (lambda t: 0.3 + 0.4 * t, lambda t: 0.3 + 0.4 * min(1.0, 2 * t)):  # rising, rising then level
        rt = metrics.reward_trend(run(shape))
        assert rt["steady"] and not rt["end"]["fell"], rt["end"]
    assert metrics.reward_trend(run(lambda t: 0.3 + 0.4 * t, n=19))["end"] is None  # too short to have an end


def test_the_heldout_gap_weighs_the_runs_last_steps_not_its_last_third(tmp_path):
    """The training side of the held-out gap was the last third of training: at 2,000 steps a policy hundreds of
    steps older than the one sampled on held-out prompts, so a run still improving read "significantly better on
    held-out prompts" with no true gap (-0.07, interval -0.09 to -0.06)."""
    from aquarelle.eval.evaluate import heldout_section, late_steps

    assert [late_steps(n) for n in (3, 9, 30, 100, 500, 2000)] == [1, 3, 10, 10, 50, 200]
    run = make_run(tmp_path / "run", steps=40, group_size=2)
    make_samples(run, trained=Synth(), start=Synth(), prompts=HELDOUT_PROMPTS, split="heldout", k=2)
    h = heldout_section(load_run(run), load_samples(run / "eval_samples.jsonl"))
    assert h["train_source"] == "training rollouts (last 10 of 40 steps)"
    assert h["train"]["n"] == 10 * 4  # (two groups of two a step)


def test_the_image_measures_of_a_long_run_read_a_spread_sample(tmp_path, monkeypatch):
    """Every training painting was opened: eval of a 2,000-step run (128,000 paintings) took 16 minutes and 3.5 GB
    before it printed a word. Whole GRPO groups from steps spread over the run, the last step among them."""
    rs = [Rollout.from_dict({"step": s, "group": g, "prompt_id": f"p{g}", "reward": 0.5})
          for s in range(1, 501) for g in range(8) for _ in range(8)]
    picked, n_steps = metrics.image_sample(rs)
    assert len(picked) <= metrics.MAX_IMAGES and {r.group for r in picked} == {0, 1, 2, 3}
    steps = sorted({r.step for r in picked})
    assert n_steps == len(steps) > 100 and steps[0] == 1 and steps[-1] == 500
    assert sum(1 for r in picked if (r.step, r.group) == (steps[0], 0)) == 8  # whole groups

    run = make_run(tmp_path / "run", steps=9, group_size=4)
    monkeypatch.setattr(metrics, "MAX_IMAGES", 20)
    d = metrics.diversity(load_run(run).rollouts, loader(load_run(run)))
    assert d["n_images"] <= 20 and d["sampled"].startswith(f"{d['n_images']} of 72 paintings, from ")
    assert len(d["per_step"]) == 9 and d["per_step"][-1]["within_group"] is not None


def test_runs_of_six_to_nine_steps_keep_the_power_of_five():
    """The bias formula divides by n - 5: applied from 6 steps, a near-zero r1 of independent rewards became phi
    near 1, and a 6-step run rising 8 noise sds read "cannot tell" in 39% of simulated runs (60% steady, against 99%
    at 5 steps), with a reason blaming slow wander. Under 10 steps r1 is used as measured."""
    for n in (5, 6, 7, 8, 9):
        rising = _ar1_batch(n, [(n, 0.0)], 100, rise=8.0)
        trends = [metrics.reward_trend(rs) for rs in rising]
        assert sum(t["steady"] is True for t in trends) >= 90, n
        assert sum(t["trend"]["t_stat"] is None for t in trends) <= 3, n
