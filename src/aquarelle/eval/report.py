"""``aquarelle report RUN -o report.html``: one static page a person opens in a browser.

Every painting and plot is an ``<img>`` with a PNG data URI (no lazy loading, no
network, nothing next to the file to lose). The page answers the four questions
in plain language first, then shows the evidence: curves, tables, a gallery of
the best and worst painting of each group, and the held-out comparison.
"""

from __future__ import annotations

import base64
import html
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from . import evaluate, images, metrics, plots
from .run import TERMS, Rollout, Run, RunError, load_run, load_samples

#: Gallery size: this many training steps, this many groups per step.
GALLERY_STEPS = 6
GALLERY_GROUPS = 4


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _img(png: bytes | None, alt: str, cls: str = "plot") -> str:
    if not png:
        return f'<p class="missing">({html.escape(alt)}: no data)</p>'
    return f'<img class="{cls}" src="{data_uri(png)}" alt="{html.escape(alt)}" loading="eager">'


def _fmt(v: Any, nd: int = 3) -> str:
    if v is None:
        return '<span class="na">n/a</span>'
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{round(v, nd) + 0.0:.{nd}f}"  # + 0.0 turns -0.0 into 0.0: "-0.000" read as a fall where nothing moved
    if isinstance(v, list):
        return " &rarr; ".join(_fmt(x, nd) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{html.escape(str(k))}: {_fmt(x, nd)}" for k, x in v.items()) or "none"
    return html.escape(str(v))


def _table(rows: Sequence[tuple[str, Any]], head: tuple[str, str] = ("measure", "value")) -> str:
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{_fmt(v)}</td></tr>" for k, v in rows)
    return f'<table class="kv"><thead><tr><th>{head[0]}</th><th>{head[1]}</th></tr></thead><tbody>{body}</tbody></table>'


def _grid(cols: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    # every cell escaped: a cell starting with '<' went in raw, and a run folder named '<img onerror=...>' (or a
    # preset from its config.json) ran script in compare.html
    b = "".join("<tr>" + "".join(f"<td>{_fmt(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="grid"><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>'


def _card(run: Run, r: Rollout, label: str) -> str:
    path = run.image_path(r)
    png = images.thumbnail_png(path) if path else None
    cap = (f"<b>{html.escape(label)}</b> reward {_fmt(r.reward, 2)}<br>judge {_fmt(r.breakdown.get('judge'), 2)} "
           f"&middot; preference {_fmt(r.breakdown.get('preference'), 2)}")
    why = _why_not_scored(r)
    if why:  # a card of "no image, reward 0.00" told a person nothing of the syntax error or refusal behind it
        cap += f'<br><span class="why">{html.escape(why)}</span>'
    pic = _img(png, f"{label}: {r.prompt}", "painting") if png else '<div class="noimg">no image</div>'
    return f'<figure>{pic}<figcaption>{cap}</figcaption></figure>'


def _why_not_scored(r: Rollout, n: int = 140) -> str | None:
    """Why a painting got no reward or the gate's 0, in one clipped line: the unscored reason, else its first error."""
    if r.reward is None:
        return f"unscored: {metrics.unscored_reason(r)[:n]}"
    if r.breakdown.get("gate") == 0:
        errs = metrics.policy_errors(r)
        if errs:
            return errs[0][:n]
        # a tools painting under the gate has no error, only the gate's reason in its feedback (a blank tile said
        # nothing: "Gate failed: nothing painted: the program has no drawing call")
        fb = str(r.extra.get("feedback") or "")
        return fb[fb.index("Gate failed:"):][:n] if "Gate failed:" in fb else None
    return None


def _rank_key(r: Rollout) -> float:
    return r.reward if r.reward is not None else -1.0


def gallery(run: Run, rollouts: Sequence[Rollout]) -> str:
    """Best and worst painting of each group, for a spread of steps."""
    steps = metrics.steps_of(rollouts)
    if not steps:
        return "<p>No rollouts.</p>"
    if len(steps) > GALLERY_STEPS:
        idx = sorted({round(i * (len(steps) - 1) / (GALLERY_STEPS - 1)) for i in range(GALLERY_STEPS)})
        steps = [steps[i] for i in idx]
    groups: dict[int, dict[int, list[Rollout]]] = defaultdict(lambda: defaultdict(list))
    for r in rollouts:
        groups[r.step][r.group].append(r)
    out = []
    for s in steps:
        cells = []
        for g in sorted(groups[s])[:GALLERY_GROUPS]:
            rs = sorted(groups[s][g], key=_rank_key, reverse=True)
            cards = _card(run, rs[0], "best")
            if len(rs) > 1:
                cards += _card(run, rs[-1], "worst")
            cells.append(f'<div class="group"><div class="prompt">{html.escape(rs[0].prompt)}</div>{cards}</div>')
        out.append(f'<div class="step"><h3>step {s}</h3><div class="groups">{"".join(cells)}</div></div>')
    return "".join(out)


def heldout_gallery(run: Run, samples: Sequence[Rollout]) -> str:
    """For each held-out prompt, the best painting of the trained and of the starting policy."""
    by: dict[str, dict[str, list[Rollout]]] = defaultdict(lambda: defaultdict(list))
    for r in samples:
        if r.split == "heldout" and r.policy in ("trained", "start"):
            by[r.prompt_id][r.policy].append(r)
    if not by:
        return "<p>No held-out paintings were sampled.</p>"
    cells = []
    for pid in sorted(by)[:8]:
        cards = ""
        prompt = ""
        for pol in ("trained", "start"):
            rs = sorted(by[pid][pol], key=_rank_key, reverse=True)
            if rs:
                prompt = rs[0].prompt
                cards += _card(run, rs[0], f"{pol} policy")
        cells.append(f'<div class="group"><div class="prompt">{html.escape(prompt)}</div>{cards}</div>')
    return f'<div class="groups">{"".join(cells)}</div>'


def eval_samples(run: Run, ev: dict[str, Any]) -> tuple[list[Rollout], str | None]:
    """The samples eval.json's numbers were computed from (``sampling.source``), or none and the one line that says
    why they cannot be shown.

    Why: the held-out gallery read RUN/eval_samples.jsonl whatever eval had scored, so it showed other paintings than
    the verdict's (eval of a --samples-file beside an older eval_samples.jsonl), none under a verdict on 32, or the
    paintings of an earlier policy under "no held-out samples". A relative source is the run's own file, or a
    --samples-file named relative to where eval ran; either is used only while it still holds what eval counted.
    """
    sampling = ev.get("sampling") or {}
    source = sampling.get("source")
    if not source:
        return [], None
    path = Path(source)
    found = [p for p in ([path] if path.is_absolute() else [run.path / path, path]) if p.is_file()]
    if not found:
        return [], (f"The held-out paintings behind these numbers are not shown: their samples file {source} "
                    + ("is gone." if path.is_absolute() else "is in neither the run folder nor the current folder."))
    prompts = sampling.get("prompts") or "all"
    for p in found:
        try:
            rows = [r for r in load_samples(p) if prompts == "all" or r.split == prompts]
        except RunError:
            continue
        if _same_samples(rows, ev):
            return rows, None
    return [], (f"The held-out paintings behind these numbers are not shown: their samples file {source} has changed "
                "since eval.json was written (run `aquarelle eval RUN` again).")


def _same_samples(rows: Sequence[Rollout], ev: dict[str, Any]) -> bool:
    """Whether ``rows`` are the samples ``ev`` counted: as many, as many unscored, and the same count and mean reward
    for each policy and prompt split (eval.json keeps no checksum of the file; a copied run's times say nothing)."""
    sampling = ev.get("sampling") or {}
    for key, have in (("n", len(rows)), ("unscored", sum(r.reward is None for r in rows))):
        if sampling.get(key) is not None and sampling[key] != have:
            return False
    pols = ev.get("policies")
    if isinstance(pols, dict):
        want = {(pol, split): s for pol in ("trained", "start") for split, s in (pols.get(pol) or {}).items()}
    else:  # an eval.json from before "policies": its held-out summaries
        h = ev.get("heldout") or {}
        want = {("trained", "heldout"): h.get("heldout"), ("start", "heldout"): h.get("start")}
    for (pol, split), s in want.items():
        rs = [r for r in rows if r.policy == pol and r.split == split]
        if not isinstance(s, dict):
            if rs:
                return False
            continue
        mean = metrics.summary(rs)["reward"] if rs else None  # eval.json's own measure (prompts weigh alike)
        if len(rs) != s.get("n") or (mean is None) != (s.get("reward") is None) or \
                (mean is not None and not math.isclose(mean, s["reward"], rel_tol=1e-3, abs_tol=1e-3)):
            return False
    return True


#: Long words wrap: a 5000-character prompt without spaces ran out of its gallery card, a long method name or error
#: out of the tool tables, a long run folder name out of the title. ``break-word`` everywhere, ``anywhere`` only in
#: the values of the measure/value tables, which must shrink to the page (on every cell it would break "reward" into
#: "rewar d" in the held-out table, which scrolls instead).
CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1180px;padding:1.2em;color:#222;background:#fdfbf6;overflow-wrap:break-word}
.kv td{overflow-wrap:anywhere}
h1{margin-bottom:.1em}h2{border-bottom:2px solid #e6dcc8;padding-bottom:.2em;margin-top:1.6em}
.sub{color:#666}.status{background:#fff4d6;border-left:3px solid #d8a400;padding:.4em .7em}table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #e0d8c8;padding:3px 8px;text-align:left;vertical-align:top;font-size:13px}
thead th{background:#f3ecdd}.na{color:#999}.verdict{margin:.5em 0;padding:.5em .8em;border-left:5px solid #ccc;background:#fff}
.verdict.good{border-color:#27ae60}.verdict.bad{border-color:#c0392b}.verdict.unclear{border-color:#f39c12}
.verdict .q{font-weight:600}.ans{text-transform:uppercase;font-weight:700;margin-right:.4em}
img.plot{max-width:100%;margin:.3em .3em 0 0;border:1px solid #eee;background:#fff}
.plots{display:flex;flex-wrap:wrap;gap:.4em}.groups{display:flex;flex-wrap:wrap;gap:.8em}
.group{background:#fff;border:1px solid #eee;padding:.4em;max-width:360px}.group figure{display:inline-block;margin:.2em;width:160px;vertical-align:top}
.prompt{font-style:italic;font-size:13px;margin-bottom:.2em}figcaption{font-size:11px;color:#444}.why{color:#8a2a1a}
img.painting{width:160px;height:auto;display:block;border:1px solid #ddd;box-sizing:border-box}.noimg{width:160px;height:160px;background:#eee;display:flex;align-items:center;justify-content:center;color:#999}
.missing{color:#999;font-style:italic}.scroll{overflow-x:auto}
"""


def _transcript_rows(ta: dict[str, Any]) -> list[tuple[str, Any]]:
    """What the transcripts show of the tool calls written (none when the rollouts kept no transcript)."""
    if ta.get("tool_call_attempts") is None:
        return []
    return [("tool calls written", ta["tool_call_attempts"]),
            ("never parsed (malformed or cut off)", ta.get("malformed_calls")),
            ("failed on their arguments", ta.get("failed_calls")),
            ("written after the last turn (never ran, not errors)", ta.get("unanswered_calls"))]


def _samples_tools(ta: dict[str, Any] | None) -> str:
    """Tool use of the sampled trained policy, from its transcripts (what it tried, not only what took effect)."""
    if not ta:
        return ""
    return "<h3>Sampled trained policy</h3>" + _table([
        ("episodes", ta["episodes"]), *_transcript_rows(ta), ("invented methods", ta["invented_methods"]),
        ("outside methods", ta["outside_methods"]), ("errors per episode", ta["errors_per_episode"]),
        ("method usage", ta["method_usage"])])


def _verdict_html(ev: dict[str, Any]) -> str:
    out = []
    for key, v in ev["verdicts"].items():
        good = v["answer"] == ("no" if key == "gamed" else "yes")
        cls = "unclear" if v["answer"] == "unclear" else ("good" if good else "bad")
        out.append(f'<div class="verdict {cls}" id="verdict-{html.escape(str(key))}"><div class="q">{html.escape(v["question"])}</div>'
                   f'<span class="ans">{html.escape(v["answer"])}</span>{html.escape(_after_answer(v))}</div>')
    return "".join(out)


def _after_answer(v: dict[str, Any]) -> str:
    """A verdict's text without its opening answer word ("No, reward did not rise" -> "Reward did not rise"): the
    page shows the answer in capitals just before it, and "NO No, ..." read as a stutter. eval.json keeps the
    whole sentence, which stands alone."""
    text, word = v["text"], v["answer"]
    if text[:len(word)].lower() == word and text[len(word):len(word) + 1] in (",", ":", "."):
        rest = text[len(word) + 1:].lstrip()
        return rest[:1].upper() + rest[1:] if rest else text
    return text


def run_status(run: Run) -> str | None:
    """Whether training finished, and its resumes, in words (None for a run that finished in one go). Why: the page
    of a run stopped at step 3 of 6 read "4 steps · 8 rollouts" with no word that it had not finished, and a resumed
    run's step-time spike was nowhere explained."""
    notes = []
    if not run.summary:
        from ..outputs import checkpoints

        ck = checkpoints(run.path)
        goal = run.setting("optim.max_steps")
        notes.append(f"Training has not finished (still running, or stopped): no summary.json yet; "
                     f"{run.trained_steps} step{'' if run.trained_steps == 1 else 's'} so far"
                     + (f" of optim.max_steps {goal}" if goal else "")
                     + (f", the last checkpoint {ck[-1].name} (`aquarelle train --resume --out RUN` trains on from it)"
                        if ck else ", no checkpoint yet") + ".")
    resumes = run.config.get("resumes")
    if isinstance(resumes, list) and resumes:
        froms = [str(r.get("from")) for r in resumes if isinstance(r, dict)]
        notes.append(f"Resumed {len(resumes)} time{'' if len(resumes) == 1 else 's'} (from {', '.join(froms)}): the "
                     f"steps after each checkpoint ran again in a new process, so their step time includes a start.")
    return " ".join(notes) or None


def build(run_dir: str | Path, run: Run | None = None) -> str:
    """The report page for a run (uses RUN/eval.json when present, else the run's own rollouts only); ``run``: the
    run already loaded from ``run_dir``."""
    run = run if run is not None else load_run(run_dir)
    ev = evaluate.read(run.path)
    if ev is None:
        why = evaluate.problem(run.path)
        # the last sampling's paintings, if any; the run as loaded (not read a second time beside it)
        ev = evaluate.evaluate(run.path, samples=0, progress=False, run=run)
        # the reason eval gives for not using them (out of date, no held-out ones) is kept: it was overwritten
        kept = (ev["sampling"].get("reason") or "").removeprefix("--samples 0: ")
        ev["sampling"]["reason"] = ("no eval.json yet" if why == "missing" else why) + \
            (": rebuilt with the last sampling's paintings" if ev["sampling"]["source"] else
             (f": {kept}; " if kept else ": ") + "run `aquarelle eval RUN` to sample the trained and starting policies")
    else:  # training went on after the eval: what comes from rollouts is refreshed
        ev = evaluate.refreshed(run, ev)
    samples, samples_gone = eval_samples(run, ev)
    # held-out samples on prompts the run trained on are left out of the held-out numbers: out of their gallery too
    samples = evaluate.not_trained_on(samples, ev["heldout"].get("trained_on") or ())
    train = [r for r in run.rollouts if r.policy is None]
    w = ev["weights"]
    formula = " + ".join(f"{w[t]:.2f} &times; {t}" for t in TERMS)
    rt, ta, sa, dv = ev["reward_trend"], ev["term_attribution"], ev["scorer_agreement"], ev["diversity"]
    tool, bad, cov, h = ev["tool_adherence"], ev["bad_rollouts"], ev["coverage"], ev["heldout"]

    thirds_rows = []
    if rt["thirds"]:
        for t in ("total",) + TERMS:
            thirds_rows.append([t, *rt["thirds"][t]])
    thirds_html = _grid(["term", "first third", "middle third", "last third"], thirds_rows) if thirds_rows else \
        f"<p>{html.escape(rt.get('reason') or '')}</p>"
    attr_rows = [[t, w[t], ta["mean_contribution"][t], (ta["term_change"] or {}).get(t),
                  (ta["share_of_change"] or {}).get(t), ta["correlation_with_total"][t]] for t in TERMS]

    parts = [f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>aquarelle report: {html.escape(run.name)}</title><style>{CSS}</style></head><body>
<h1>aquarelle report: {html.escape(run.name)}</h1>
<p class="sub">preset <b>{_fmt(evaluate.preset_text(ev))}</b> &middot; mode {_fmt(ev.get('mode'))} &middot; action space
{_fmt(ev.get('action_space'))} &middot; {html.escape(evaluate.steps_text(ev))} &middot; {_fmt(ev['rollouts'])} rollouts &middot; evaluated {_fmt(ev.get('created'))}</p>
{f'<p class="status">{html.escape(status)}</p>' if (status := run_status(run)) else ""}
<p>Reward = {formula}. The <b>judge</b> compares each painting with reference paintings from the pool (each pair in
both orders); the <b>preference</b> scorer rates it alone. A gate failure scores 0.</p>
<h2 id="verdicts">Verdicts</h2>{_verdict_html(ev)}
<h2 id="curves">Training curves</h2><div class="plots">
{_img(plots.reward_curve(train), "reward per step")}{_img(plots.term_curves(train), "reward terms per step")}
{_img(plots.contribution_stack(train, w), "weighted contributions")}
{_img(plots.training_stats(run.metrics), "training statistics") if run.metrics else ""}</div>
<h2 id="trend">Reward by thirds of training</h2>{thirds_html}
{_table([("slope per step", rt['trend']['slope']), ("t-statistic", rt['trend']['t_stat']), ("p-value", rt['trend']['p_value']),
         ("independent steps (lag-1 autocorrelation counted" + (", bias-corrected)" if rt['trend'].get('lag1_corrected')
                                                                 is not None else ")"), rt['trend'].get('n_eff')),
         ("change, first to last third", rt['change']), ("steady rise", rt['steady']),
         ("bad paintings (reward < 0.3) by third", bad['thirds']), ("bad paintings overall", bad['rate'])])}
<h3>Which term moved the total</h3>
{_grid(["term", "weight", "mean contribution", "change of contribution", "share of the change", "correlation with total"], attr_rows)}
<h2 id="scorers">Judge and preference: agreement</h2><div class="plots">{_img(plots.scorer_scatter(train), "judge vs preference")}
{_table([("rank agreement (Spearman), judge vs preference", sa['spearman']),
         ("same order inside a GRPO group", sa['group_pair_agreement']), ("judge change, first to last third", sa['judge_change']),
         ("preference change, first to last third", sa['preference_change']), ("a scorer being gamed", sa['gamed']),
         ("flags", "; ".join(sa['flags']) or "none"), ("judge position-bias rate", sa['position_bias_rate'])])}</div>
<h2 id="diversity">Diversity</h2><div class="plots">{_img(plots.diversity_curve(dv), "diversity per step")}
{_table([("image distance within a GRPO group", dv['within_group']), ("... by thirds", dv['within_group_thirds']),
         ("image distance across prompts", dv['across_prompts']), ("... by thirds", dv['across_prompts_thirds']),
         ("palette entropy (bits)", dv['palette_entropy']), ("paintings whose code another of their group repeats", dv['duplicate_code_rate']),
         ("collapsed", dv['collapsed']), ("why", "; ".join(dv['collapse_reasons']) or "none")])}</div>
<h2 id="tools">Tool adherence</h2>
{_table([("action space", tool['action_space']), ("episodes", tool['episodes']), ("calls per episode", tool['calls_per_episode']),
         ("calls outside the action space", tool['outside_calls']), ("share outside", tool['outside_rate']),
         ("outside methods", tool['outside_methods']), ("invented methods", tool['invented_methods']),
         ("share invented", tool['invented_rate']), ("errors per episode", tool['errors_per_episode']),
         ("errors per episode by third", tool['errors_per_episode_thirds']), *_transcript_rows(tool),
         ("method usage", tool['method_usage'])])}
{_samples_tools(ev.get("tool_adherence_samples"))}
<h2 id="coverage">Painted coverage</h2>
{_table([("mean", cov['mean']), ("median", cov['median']), ("10th-90th percentile", [cov['p10'], cov['p90']]),
         ("by thirds", cov['thirds']), ("change, first to last third", cov.get('change')),
         ("below the 0.5% gate", cov['below_gate']),
         ("correlation with preference", cov['corr_preference']),
         ("... among the better half of paintings", cov['corr_preference_high_reward'])])}
"""]
    # the held-out section
    pol_rows = []
    for name, s in (("trained policy, held-out prompts", h.get("heldout")), ("starting policy, held-out prompts", h.get("start")),
                    ("trained policy, training prompts" + (f": {h['train_source']}" if h.get("train_source") else ""), h.get("train")),
                    ("starting policy, training prompts", ((ev.get("policies") or {}).get("start") or {}).get("train"))):
        if s:
            pol_rows.append([name, s.get("n"), s.get("reward"), s.get("judge"), s.get("preference"), s.get("bad_rate"),
                             s.get("coverage"), s.get("across_prompts"), s.get("errors_per_episode")])
    vs = h.get("trained_vs_start") or {}
    bars = plots.policy_bars({"trained (held-out)": h.get("heldout"), "start (held-out)": h.get("start"),
                              "trained (training prompts)": h.get("train")}, "trained vs starting policy") \
        if h.get("heldout") or h.get("start") else None
    sampled_from = " · ".join(x for x in (ev["sampling"].get("source"), ev["sampling"].get("reason")) if x) or None
    parts.append(f"""<h2 id="held-out">held-out</h2>
<p>{html.escape(ev['verdicts']['heldout']['text'])}</p>
<div class="scroll">{_grid(["policy and prompts", "n", "reward", "judge", "preference", "bad rate", "coverage", "distance across prompts", "errors/episode"], pol_rows) if pol_rows else ""}</div>
{_table([("trained minus start, reward", vs.get('improvement')),
         ("its 95% interval (Student's t over prompts)", " to ".join(f"{v:+.3f}" for v in vs["improvement_ci"]) if vs.get("improvement_ci") else None),
         ("held-out prompts the trained policy wins (ties count half)", vs.get('win_rate')),
         ("held-out prompts better / level / worse", " / ".join(str(vs[k]) for k in ("better", "level", "worse"))
          if vs.get("better") is not None else None),
         ("gap, training minus held-out (reward)", (h.get('gap') or {}).get('reward')), ("held-out reward within the margin of training's (see the verdict)", h.get('holds')),
         *_train_comparison_rows((ev.get("policies") or {}).get("train_comparison"))])}
<div class="plots">{_img(bars, "trained vs starting policy") if bars else ""}</div>
{f'<p class="missing">{html.escape(samples_gone)}</p>' if samples_gone else heldout_gallery(run, samples)}
<p class="sub">Sampling: {_fmt(sampled_from)}; {_fmt(ev['sampling'].get('n', 0))} samples,
{_fmt(ev['sampling'].get('unscored', 0))} unscored; temperature {html.escape(evaluate.temperature_text(ev['sampling'].get('temperature')))}.</p>
<h2 id="gallery">Gallery: best and worst of each group, by step</h2>{gallery(run, train)}
</body></html>""")
    return "".join(parts)


def _train_comparison_rows(tc: dict[str, Any] | None) -> list[tuple[str, Any]]:
    """The trained-vs-start comparison on training prompts, when both policies were sampled there (eval computed it
    and showed it nowhere)."""
    if not tc or tc.get("improvement") is None:
        return []
    return [("trained minus start on training prompts, reward", tc["improvement"]),
            ("training prompts better / level / worse", " / ".join(str(tc[k]) for k in ("better", "level", "worse"))
             if tc.get("better") is not None else None)]


def write_report(run_dir: str | Path, out: str | Path, run: Run | None = None) -> Path:
    out = Path(out)
    page = build(run_dir, run)  # first: a run that is not there must not leave -o's new folders behind
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out
