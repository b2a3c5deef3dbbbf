"""Plain-language verdicts for the four questions (and tool adherence), from the eval object.

Each verdict is ``{"question", "answer": "yes" | "no" | "unclear", "text"}``; the
text names the numbers it rests on, so a reader can check it against the tables.
"""

from __future__ import annotations

from typing import Any

from ..rewards.probes import fooled_text
from .metrics import FLOOD_CORR, FLOOD_RISE, RISE

QUESTIONS = {
    "improves": "Do quality and reward improve steadily?",
    "gamed": "Is it over-fitting one scorer (judge or preference)?",
    "diverse": "Is it diverse?",
    "heldout": "Does it hold on new (held-out) prompts?",
    "tools": "Does it use the tools it was given?",
}


def _f(x: float | None, nd: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{nd}f}"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def _arrow(v: list[float | None] | None) -> str:
    return " -> ".join(_f(x) for x in v) if v else "n/a"


def _needs(rt: dict[str, Any]) -> str:
    return f", significant above {_f(rt['t_threshold'], 1)}" if rt.get("t_threshold") is not None else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _trained(ev: dict[str, Any], rollout_steps: int, span: str = "") -> str:
    """The run's length as the report's header gives it: its optimizer steps, and how many of them have rollouts
    when fewer do ("4 training steps (2 with rollouts)"), with ``span`` (an aside) inside the parentheses.

    Why: with generation reuse (``steps_per_generation``, ``num_iterations``) the steps that train on buffered
    rollouts have none, and the verdict named the steps with rollouts as the training steps (2 where eval.json's
    ``steps`` and the header said 4)."""
    n = ev.get("steps")
    if isinstance(n, int) and not isinstance(n, bool) and n > rollout_steps:
        return f"{_plural(n, 'training step')} ({rollout_steps} with rollouts{'; ' + span if span else ''})"
    return _plural(rollout_steps, "training step") + (f" ({span})" if span else "")


def _reasons(reasons: dict[str, int] | None) -> str:
    return "; ".join(f"{k} ({n}x)" for k, n in (reasons or {}).items())


def _unscored(n: int, of: int, reasons: dict[str, int] | None, what: str) -> str:
    """" N of M <what> were not scored (why)." when some were not: an infrastructure failure is no score, and a
    verdict on the rest must say it rests on fewer (it was said only when none was scored)."""
    if not n:
        return ""
    why = _reasons(reasons)
    return f" {n} of {of} {what} were not scored{' (' + why + ')' if why else ''}."


def improves(ev: dict[str, Any]) -> dict[str, str]:
    v = _improves(ev)
    rt = ev["reward_trend"]
    if rt["n_scored"]:
        v["text"] += _unscored(rt["n_rollouts"] - rt["n_scored"], rt["n_rollouts"], rt.get("unscored_reasons"),
                               "training rollouts")
    return v


def _improves(ev: dict[str, Any]) -> dict[str, str]:
    rt, bad = ev["reward_trend"], ev["bad_rollouts"]
    t = rt["trend"]["t_stat"]
    if rt["n_rollouts"] and not rt["n_scored"]:
        why = _reasons(rt.get("unscored_reasons"))
        return {"answer": "unclear", "text": f"No rollout was scored ({rt['n_rollouts']} unscored"
                                             f"{': ' + why if why else ''}), so there is no reward to follow."}
    if rt["thirds"] is None:
        per = rt.get("per_step") or []
        span = f"reward {_f(per[0]['reward'])} at step {per[0]['step']}, {_f(per[-1]['reward'])} at step " \
               f"{per[-1]['step']}" if per else ""
        return {"answer": "unclear", "text": f"Too short to tell: {_trained(ev, rt['n_steps'], span)}; "
                                             "thirds and a trend need rollouts from at least 3 steps."}
    th = rt["thirds"]
    detail = (f"reward by thirds {_arrow(th['total'])} (slope t = {_f(t, 1)}{_needs(rt)}); judge {_arrow(th['judge'])}, "
              f"preference {_arrow(th['preference'])}; bad paintings (reward < 0.3) {_arrow(bad['thirds'])}.")
    if rt["steady"] is None:
        return {"answer": "unclear", "text": f"Cannot tell ({rt.get('reason')}): " + detail}
    if rt["steady"]:
        end = rt.get("end") or {}
        if end.get("fell"):  # thirds and the slope average a late fall away
            a, b = end["best_steps"]
            return {"answer": "no", "text": f"It rose, then fell back at the end: the last {end['window']} steps "
                                            f"average {_f(end['last'])} against {_f(end['best'])} over steps {a}-{b}, "
                                            f"the best {end['window']} (more than {_f(end['margin'])} apart, beyond "
                                            f"their noise); " + detail}
        return _steady(ev, detail)
    if (rt["change"] or 0) > 0 and (t is None or t <= (rt.get("t_threshold") or 0)):
        # a rise the steps cannot tell from noise is no answer either way: at the demo's 3 steps (t must pass 6.31)
        # a true rise of +0.2 read "No" in 77% of simulated runs
        return {"answer": "unclear", "text": "It rose, but not significantly: " + detail}
    if (rt["change"] or 0) > 0:
        return {"answer": "no", "text": "It rose, but not steadily: " + detail}
    return {"answer": "no", "text": "No, reward did not rise: " + detail}


QUALITY, AUX = ("judge", "preference"), ("gate", "length")


def _steady(ev: dict[str, Any], detail: str) -> dict[str, str]:
    """A steady rise is quality's only when the quality scorers carry it: a policy that pads its code for the length
    term (or only stops crashing, the gate's own 0.05) raises the reward steadily with the judge and preference
    flat, and was told "Yes, steadily". Read from ``term_attribution`` (weighted, first to last third; a gated
    rollout counts 0 in every term, so a policy that stops crashing raises the quality terms too)."""
    w = ev.get("weights") or {}
    if w and not any(w.get(t) for t in QUALITY):
        return {"answer": "unclear", "text": "Reward rose steadily, but neither quality scorer (judge, preference) "
                                             "has weight in this run's weights, so quality was never measured: "
                                             + detail}
    tc = (ev.get("term_attribution") or {}).get("term_change") or {}
    if any(tc.get(t) is None for t in QUALITY + AUX):
        return {"answer": "yes", "text": "Yes, steadily: " + detail}
    q, a = tc["judge"] + tc["preference"], tc["gate"] + tc["length"]
    parts = (f"the judge and preference {q:+.3f}, the gate {tc['gate']:+.3f} and length {tc['length']:+.3f} "
             f"(weighted, first to last third)")
    # "did not rise": less than each quality scorer rising by ``RISE``, the gaming check's own threshold
    flat = RISE * sum(w.get(t, 0.0) for t in QUALITY) if w else RISE
    if q < flat and a > flat:
        pad = ": the policy may be padding its code for the length term" if tc["length"] > 0 else ""
        return {"answer": "no", "text": f"Reward rose steadily, but not through quality: {parts}; the quality scorers "
                                        f"did not rise{pad}. " + detail[0].upper() + detail[1:]}
    if a > q:
        return {"answer": "yes", "text": f"Yes, steadily, but mostly through the gate and length terms ({parts}): "
                                         + detail}
    pc = (ev.get("term_attribution") or {}).get("passing_change") or {}
    if all(pc.get(t) is not None and pc[t] <= RISE for t in QUALITY):
        # the weighted quality terms rose only because fewer paintings were gated (each counts 0 in every term)
        return {"answer": "yes", "text": f"Yes, steadily, through fewer failed paintings: the paintings that passed the "
                                         f"gate did not score better (judge {pc['judge']:+.3f}, preference "
                                         f"{pc['preference']:+.3f}, first to last third): " + detail}
    return {"answer": "yes", "text": "Yes, steadily: " + detail}


def gamed(ev: dict[str, Any]) -> dict[str, str]:
    """From training and the samples (``_gamed_by_policy``), then the scorers' own probes (``scorer_probes``):
    scorers that rate a painting of nothing above the pool's loved paintings can be gamed together, which the
    divergence checks cannot see."""
    v = _gamed_by_policy(ev)
    fooled = fooled_text(ev.get("scorer_probes"))
    if fooled and v["answer"] == "no":
        return {"answer": "unclear", "text": f"Cannot rule it out: {fooled}. Otherwise "
                                             + v["text"][0].lower() + v["text"][1:]}
    if fooled:
        return {**v, "text": v["text"] + f" Also: {fooled}."}
    return v


def _gamed_by_policy(ev: dict[str, Any]) -> dict[str, str]:
    """From training (``scorer_agreement``) and from the sampled trained policy (``sampled_checks``): a policy
    that games a scorer in its samples is gaming it, whatever its training rollouts said."""
    v = _gamed(ev)
    flood = _flood(ev)
    if flood and v["answer"] == "no":
        v = {"answer": "unclear", "text": f"Cannot rule it out: {flood}. Otherwise " + v["text"][0].lower()
                                          + v["text"][1:]}
    elif flood:
        v = {**v, "text": v["text"] + f" Also: {flood}."}
    flags = (ev.get("sampled_checks") or {}).get("gaming_flags") or []
    old = _stale(ev)
    if flags and v["answer"] == "yes":
        return {"answer": "yes", "text": v["text"] + " In the samples too: " + "; ".join(flags) + "." + old}
    if flags:
        return {"answer": "yes", "text": "Likely, in the samples: " + "; ".join(flags) + "." + old + " In training: "
                + v["text"][0].lower() + v["text"][1:]}
    hints = (ev.get("sampled_checks") or {}).get("gaming_hints") or []
    if hints and v["answer"] == "no":
        return {"answer": "unclear", "text": "Cannot rule it out, in the samples: " + "; ".join(hints) + "." + old
                + " In training: " + v["text"][0].lower() + v["text"][1:]}
    if hints:
        return {**v, "text": v["text"] + " In the samples: " + "; ".join(hints) + "." + old}
    return v


def _stale(ev: dict[str, Any]) -> str:
    """" (Those samples are of an earlier policy: ...)" after a verdict's sample part, when training went on after
    them (``evaluate.refreshed``): only the held-out verdict said so."""
    why = (ev.get("sampling") or {}).get("stale")
    return f" (Those samples are out of date: {why}.)" if why else ""


def _flood(ev: dict[str, Any]) -> str | None:
    """A preference scorer may reward paint for its own sake: the policy then paints more of the canvas, the
    preference rises with it and the judge does not. The scorers then do not move apart (the judge need not fall),
    so the divergence check says nothing; this names it without calling it proven."""
    cov, sa = ev.get("coverage") or {}, ev["scorer_agreement"]
    change, corr = cov.get("change"), cov.get("corr_preference")
    up, judge = sa.get("preference_change"), sa.get("judge_change")
    if None in (change, corr, up, judge) or not (change >= FLOOD_RISE and corr >= FLOOD_CORR and up > RISE > judge):
        return None
    th = cov.get("thirds") or []
    return (f"the preference rose ({up:+.2f}) with painted coverage ({_arrow(th)}, correlation {corr:.2f} with the "
            f"preference) while the judge did not ({judge:+.2f}): the policy may be flooding the canvas for the "
            f"preference")


def _gamed(ev: dict[str, Any]) -> dict[str, str]:
    sa = ev["scorer_agreement"]
    w = ev.get("weights") or {}
    rho = f"rank agreement judge vs preference rho = {_f(sa['spearman'])}"
    bias = "" if sa.get("position_bias_rate") is None else \
        f"; the judge flipped its verdict with the order in {_pct(sa['position_bias_rate'])} of pairs"
    if sa["gamed"] is None:
        off = [t for t in ("judge", "preference") if w.get(t) == 0 and sa.get(f"{t}_change") is None]
        if off:  # a scorer weighed 0 is never run (``RewardModel.score``): more steps will not bring its scores
            return {"answer": "unclear", "text": f"Cannot tell: the {off[0]} has weight 0 in this run's weights, so "
                                                 f"it was never run and no second scorer checks the "
                                                 f"{'preference' if off[0] == 'judge' else 'judge'}; {rho}{bias}."}
        if sa.get("alone"):
            return {"answer": "unclear", "text": f"Cannot rule it out: {sa['alone']} ({rho}{bias})."}
        return {"answer": "unclear", "text": f"Cannot tell yet ({sa.get('reason') or 'not enough data'}); {rho}{bias}."}
    moves = f"judge {sa['judge_change']:+.2f}, preference {sa['preference_change']:+.2f} from first to last third"
    if sa["gamed"]:
        return {"answer": "yes", "text": "Likely: " + "; ".join(sa["flags"]) + f" ({rho}{bias})."}
    note = " The judge has weight 0 here, so it acts as an independent check." if w.get("judge") == 0 else ""
    return {"answer": "no", "text": f"No sign of it: the scorers move together ({moves}; {rho}{bias}).{note}"}


def diverse(ev: dict[str, Any]) -> dict[str, str]:
    """From training (``diversity``) and from the sampled trained policy (``sampled_checks``)."""
    v = _diverse(ev)
    reasons = (ev.get("sampled_checks") or {}).get("collapse_reasons") or []
    if reasons and v["answer"] != "no":
        return {"answer": "no", "text": "No, in the samples: " + "; ".join(reasons) + "." + _stale(ev)
                + " In training: " + v["text"][0].lower() + v["text"][1:]}
    if reasons:
        return {"answer": "no", "text": v["text"] + " In the samples too: " + "; ".join(reasons) + "." + _stale(ev)}
    return v


def _diverse(ev: dict[str, Any]) -> dict[str, str]:
    d = ev["diversity"]
    nums = (f"image distance within GRPO groups {_f(d['within_group'], 3)} (by thirds "
            f"{_arrow(d['within_group_thirds']) if d['within_group_thirds'] else 'n/a'}), across prompts "
            f"{_f(d['across_prompts'], 3)}, palette entropy {_f(d['palette_entropy'])} bits, paintings whose code repeats "
            f"in their group {_pct(d['duplicate_code_rate'])}")
    if (d.get("blank_rate") or 0) >= 0.9:
        return {"answer": "no", "text": f"No: {_pct(d['blank_rate'])} of the canvases are blank paper, so there is "
                                        f"nothing diverse to see ({nums})."}
    if d["collapsed"] is None:
        blank = f"; {_pct(d['blank_rate'])} of the canvases are blank paper" if d.get("blank_rate") else ""
        return {"answer": "unclear", "text": f"Cannot tell: {d.get('reason')}{blank}."}
    if d["collapsed"]:
        return {"answer": "no", "text": "No, it collapsed: " + "; ".join(d["collapse_reasons"]) + f" ({nums})."}
    return {"answer": "yes", "text": f"Yes: {nums}."}


def wins_text(vs: dict[str, Any]) -> str:
    """Prompts by prompt, as counts (the verdict and the eval table): a rate with ties at half said "better on 75%" of two prompts, one a tie at 0.
    (An eval.json written before the counts has only the rate.)"""
    if vs.get("better") is None:
        return f"better on {_pct(vs['win_rate'])} of prompts (ties count half)"
    level = f", level on {vs['level']}" if vs["level"] else ""
    return f"better on {vs['better']} of {vs['prompts']} prompts, worse on {vs['worse']}{level}"


def heldout(ev: dict[str, Any]) -> dict[str, str]:
    v = _heldout(ev)
    s = ev.get("sampling") or {}
    h = ev.get("heldout") or {}
    if s.get("stale") and h.get("heldout"):  # ``evaluate.refreshed``: training went on after the samples
        v = {"answer": "unclear", "text": f"Out of date: {s['stale']}. As sampled then: " + v["text"]}
    if h.get("holds") is not None:  # (when unmeasured, the reasons are already the text)
        v["text"] += _unscored(s.get("unscored") or 0, s.get("n") or 0, s.get("unscored_reasons"), "samples")
    if h.get("trained_on"):
        n = len(h["trained_on"])
        v["text"] += (f" {n} prompt{' was' if n == 1 else 's were'} sampled as held-out but trained on, and left "
                      f"out: {', '.join(repr(p) for p in h['trained_on'][:3])}{f' and {n - 3} more' if n > 3 else ''}.")
    return v


def _heldout(ev: dict[str, Any]) -> dict[str, str]:
    h = ev.get("heldout") or {}
    vs = h.get("trained_vs_start") or {}
    cmp_ = ""
    if vs.get("improvement") is not None:
        ci = vs.get("improvement_ci")
        if ci and (ci[0] is None or ci[1] is None):  # (an eval.json whose interval did not survive ``finite``)
            ci = None
        spread = (f"; 95% interval {ci[0]:+.2f} to {ci[1]:+.2f} over {vs['prompts']} prompts, "
                  + ("so it is real" if ci[0] > 0 else "so it may be chance" if ci[1] >= 0 else "so it got worse")
                  if ci else f"; too few prompts ({vs.get('prompts', 0)}) for an interval")
        cmp_ = (f" Against the untrained starting policy on held-out prompts: {_f(vs['start_reward'])} -> "
                f"{_f(vs['trained_reward'])} ({vs['improvement']:+.2f}{spread}), {wins_text(vs)}.")
    g = (h.get("gap") or {}).get("reward")
    measured = g is not None and (h.get("train") or {}).get("reward") is not None
    if h.get("holds") is None and not measured:
        why = _reasons((ev.get("sampling") or {}).get("unscored_reasons"))
        why = f" Unscored samples: {why}." if why else ""
        return {"answer": "unclear", "text": f"Not measured: {h.get('reason') or 'no held-out samples'}.{cmp_}{why}"}
    ci = h.get("gap_ci")
    spread = (f", 95% interval {_f(ci[0])} to {_f(ci[1])} over {(h.get('heldout') or {}).get('prompts')} held-out "
              f"prompts" if ci and None not in ci else "")
    base = (f"reward {_f(h['train']['reward'])} on training prompts vs {_f(h['heldout']['reward'])} on held-out "
            f"(gap {_f(g)}{spread}; it holds if the gap is at most {h['margin']}{_temperatures(ev)}).")
    if h.get("holds") is None:
        return {"answer": "unclear", "text": f"Cannot tell: {h.get('reason') or 'not enough data'}: " + base + cmp_}
    if h["holds"] and (h["train"]["reward"] or 0) < 0.3:
        return {"answer": "unclear", "text": "Nothing to carry over yet: it paints as poorly on training prompts "
                                             "(reward below 0.3) as on new ones; " + base + cmp_}
    if h["holds"]:
        return {"answer": "yes", "text": "Yes: " + base + cmp_}
    return {"answer": "no", "text": "No, it does worse on new prompts: " + base + cmp_}


def _temperatures(ev: dict[str, Any]) -> str:
    """Where the training side is the run's own rollouts and the samples were drawn at another temperature, the gap
    compares two samplers as well as two prompt sets: said beside it."""
    h, s = ev.get("heldout") or {}, ev.get("sampling") or {}
    t_run, t_eval = s.get("run_temperature"), s.get("temperature")
    if not str(h.get("train_source") or "").startswith("training rollouts") or None in (t_run, t_eval) \
            or abs(float(t_run) - float(t_eval)) < 1e-9:
        return ""
    return f"; training rollouts at temperature {t_run:g}, held-out samples at {t_eval:g}"


def _tools_text(ta: dict[str, Any]) -> tuple[bool, str]:
    """(looks bad, description) of one tool-adherence block."""
    infra = f" ({ta['infrastructure_errors']} infrastructure errors not counted)" if ta.get("infrastructure_errors") else ""
    tried = ""
    if ta.get("tool_call_attempts"):
        late = (f", {ta['unanswered_calls']} came after the episode's last turn and never ran"
                if ta.get("unanswered_calls") else "")
        tried = (f"; of {ta['tool_call_attempts']} tool calls written, {ta['malformed_calls']} never parsed, "
                 f"{ta['failed_calls']} failed on their arguments{late}")
    if not ta["method_usage"]:  # not one brush call reached the canvas
        return True, (f"no brush call took effect in {ta['episodes']} episodes{tried}; "
                      f"{_f(ta['errors_per_episode'])} errors per episode{infra}")
    top = ", ".join(f"{m} {_pct(s)}" for m, s in list(ta["method_usage"].items())[:5])
    text = (f"{ta['calls']} calls in {ta['episodes']} episodes ({_f(ta['calls_per_episode'], 1)} per episode); "
            f"outside the {ta['action_space']} space {_pct(ta['outside_rate'])}, invented methods "
            f"{_pct(ta['invented_rate'])}; {_f(ta['errors_per_episode'])} errors per episode "
            f"({_pct(ta['episodes_with_errors'])} of episodes had one){infra}{tried}; most used: {top}")
    bad = (ta["outside_rate"] or 0) + (ta["invented_rate"] or 0) + (ta.get("malformed_rate") or 0) \
        + (ta.get("failed_rate") or 0)
    # errors weighed per call where the episodes made calls: per episode, 40 calls with one error read "Not
    # consistently" and 4 calls with 0.9 "Yes"
    epe, cpe = ta["errors_per_episode"] or 0, ta.get("calls_per_episode") or 0
    return bad > 0.05 or (epe / cpe > 0.05 if cpe else epe >= 1), text


def tools(ev: dict[str, Any]) -> dict[str, str]:
    ta = ev["tool_adherence"]
    if not ta["episodes"]:
        return {"answer": "unclear", "text": "No episodes to judge."}
    bad, text = _tools_text(ta)
    text = "In training: " + text + "."
    sa = ev.get("tool_adherence_samples")
    if sa and sa["episodes"]:
        bad_s, text_s = _tools_text(sa)
        bad = bad or bad_s
        text += " Sampled trained policy: " + text_s + "." + _stale(ev)
    return {"answer": "no" if bad else "yes", "text": ("Not consistently. " if bad else "Yes. ") + text}


def all_verdicts(ev: dict[str, Any]) -> dict[str, dict[str, str]]:
    out = {}
    for key, fn in (("improves", improves), ("gamed", gamed), ("diverse", diverse), ("heldout", heldout),
                    ("tools", tools)):
        v = fn(ev)
        out[key] = {"question": QUESTIONS[key], **v}
    return out
