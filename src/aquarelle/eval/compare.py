"""``aquarelle compare RUN...``: several runs (the presets) side by side, one page and one table.

The published comparison put judge-led, hps-led and hps-only next to each other:
reward by thirds, how much of the change each scorer made, whether styles
converged, and how each did on prompts it never saw.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from . import evaluate, plots
from .report import CSS, _grid, _img, gallery
from .run import Run, load_run, load_samples

COLUMNS = ("run", "preset", "steps", "reward by thirds", "t-statistic", "bad paintings by thirds", "judge change",
           "preference change", "scorer gamed", "distance in group", "collapsed", "held-out reward", "held-out gap",
           "held-out gap 95% interval", "vs start (held-out)", "vs start 95% interval", "held-out prompts x samples",
           "outside action space", "errors/episode")


def labels(runs: list[Run]) -> list[str]:
    """A name per run that tells it from the others: its folder, with as many parents as it takes when two folders
    share a name (two experiments' `run/`, whose rows both read "run" and whose curves were one, keyed by name), and
    "(2)" when one run is given twice."""
    parts = [r.path.resolve().parts for r in runs]
    out = []
    for p in parts:
        k = 1
        while k < len(p) and any(q != p and q[-k:] == p[-k:] for q in parts):
            k += 1
        out.append("/".join(p[-k:]))
    seen: dict[str, int] = {}
    for i, name in enumerate(out):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            out[i] = f"{name} ({seen[name]})"
    return out


def _eval_of(run) -> dict[str, Any]:
    ev = evaluate.read(run.path)
    if ev is None:
        return evaluate.evaluate(run.path, samples=0, progress=False, run=run)
    return evaluate.refreshed(run, ev)


def _heldout_n(ev: dict[str, Any], stale: Any = None) -> str | None:
    """How many held-out paintings the held-out columns rest on ("2 x 2": prompts x samples per prompt)."""
    ho = (ev.get("heldout") or {}).get("heldout") or {}
    if not ho.get("prompts") or not ho.get("n"):
        return None
    per = ho["n"] / ho["prompts"]
    n = f"{ho['prompts']} x {per:g}" if per == int(per) else f"{ho['prompts']} prompts, {ho['n']} samples"
    return n + (" (of an earlier policy)" if stale else "")


def _answer(ev: dict[str, Any], key: str, fallback: Any) -> Any:
    """A verdict's answer (yes / no / unclear), as the page's verdicts give it: the table's "scorer gamed" read the
    divergence check alone, "no" beside a verdict of "cannot rule it out" (the scorers' probes)."""
    v = (ev.get("verdicts") or {}).get(key)
    return v["answer"] if isinstance(v, dict) and v.get("answer") in ("yes", "no", "unclear") else fallback


def _interval(ci: Any) -> str | None:
    return f"{ci[0]:+.3f} to {ci[1]:+.3f}" if isinstance(ci, list) and len(ci) == 2 and None not in ci else None


def rows(run_dirs: list[str | Path], runs: list[Run] | None = None) -> list[dict[str, Any]]:
    """One comparison row per run (from its eval.json, refreshed if training went on, or its rollouts when it has
    none)."""
    runs = runs if runs is not None else [load_run(d) for d in run_dirs]
    out = []
    for run, name in zip(runs, labels(runs)):
        ev = _eval_of(run)
        rt, sa, dv, h, ta = ev["reward_trend"], ev["scorer_agreement"], ev["diversity"], ev["heldout"], ev["tool_adherence"]
        vs = h.get("trained_vs_start") or {}
        stale = (ev.get("sampling") or {}).get("stale")
        out.append({
            "run": name, "preset": evaluate.preset_text(ev), "steps": evaluate.steps_text(ev),
            "reward by thirds": rt["thirds"]["total"] if rt["thirds"] else None, "t-statistic": rt["trend"]["t_stat"],
            "bad paintings by thirds": ev["bad_rollouts"]["thirds"], "judge change": sa["judge_change"],
            "preference change": sa["preference_change"], "scorer gamed": _answer(ev, "gamed", sa["gamed"]),
            "distance in group": dv["within_group"], "collapsed": dv["collapsed"],
            "held-out reward": (h.get("heldout") or {}).get("reward"), "held-out gap": (h.get("gap") or {}).get("reward"),
            "held-out gap 95% interval": _interval(h.get("gap_ci")) or ("n/a: too few prompts" if h.get("heldout") else None),
            "vs start (held-out)": vs.get("improvement"),
            "vs start 95% interval": _interval(vs.get("improvement_ci")) or ("n/a: too few prompts" if vs else None),
            "held-out prompts x samples": _heldout_n(ev, stale),
            "outside action space": ta["outside_rate"], "errors/episode": ta["errors_per_episode"],
            "_verdicts": ev["verdicts"], "_settings": settings(run, ev),
        })
    return out


#: What a run's numbers depend on besides its policy: where two runs differ here, a column compares unlike things.
SETTINGS = ("mode", "model", "action space", "reward", "judge", "preference", "image size", "seed", "temperature",
            "held-out prompts", "eval temperature", "commit")


def settings(run: Run, ev: dict[str, Any]) -> dict[str, Any]:
    """The run's settings that move its numbers (``SETTINGS``), from config.json and eval.json."""
    s = ev.get("sampling") or {}
    commit = run.config.get("git_commit")
    commit = f"{commit[:10]}{' (uncommitted changes)' if run.config.get('git_dirty') else ''}" if commit else None
    return {
        "mode": ev.get("mode"), "model": run.setting("model.name", "policy"), "action space": ev.get("action_space"),
        "reward": evaluate.preset_text(ev), "judge": run.setting("reward.judge_backend"),
        "preference": run.setting("reward.preference_backend"), "image size": run.setting("env.image_size"),
        "seed": run.setting("optim.seed"), "temperature": run.setting("generation.temperature"),
        "held-out prompts": _heldout_prompts(run, ev), "eval temperature": s.get("temperature"), "commit": commit,
    }


def _heldout_prompts(run: Run, ev: dict[str, Any]) -> str | None:
    """The held-out prompts the run's samples were drawn on (from its samples file), as a short list."""
    src = (ev.get("sampling") or {}).get("source")
    if not src or not (ev.get("heldout") or {}).get("heldout"):
        return None
    path = Path(src) if Path(src).is_absolute() else run.path / src
    try:
        ids = sorted({r.prompt_id for r in load_samples(path) if r.split == "heldout"})
    except (OSError, ValueError):
        return None
    return f"{len(ids)}: " + ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "") if ids else None


def differences(table: list[dict[str, Any]]) -> list[str]:
    """The settings in which the runs differ (a setting no run records is left out)."""
    out = []
    for k in SETTINGS:
        vals = [_plain(t["_settings"].get(k)) for t in table]
        if len(set(vals)) > 1:
            out.append(k)
    return out


def _last_step(run) -> list:
    train = [x for x in run.rollouts if x.policy is None]
    last = max((x.step for x in train), default=None)
    return [x for x in train if x.step == last]


def build(run_dirs: list[str | Path], table: list[dict[str, Any]] | None = None, runs: list[Run] | None = None) -> str:
    runs = runs if runs is not None else [load_run(d) for d in run_dirs]
    table = table if table is not None else rows(run_dirs, runs)
    names = [t["run"] for t in table]
    curves = plots.overlay_rewards({n: [x for x in r.rollouts if x.policy is None] for n, r in zip(names, runs)})
    # by question, not by position: an eval.json with its verdicts in another order (or one fewer) put the gaming
    # verdict under "improve steadily?"
    keys: dict[str, str] = {}
    for t in table:
        for k, v in t["_verdicts"].items():
            keys.setdefault(k, v.get("question", k))
    verdict_rows = [[t["run"]] + [(t["_verdicts"].get(k) or {}).get("text") for k in keys] for t in table]
    diff = differences(table)
    same = [k for k in SETTINGS if k not in diff and any(t["_settings"].get(k) is not None for t in table)]
    unlike = "<p>The runs share every setting recorded below.</p>"
    if diff:
        unlike = (f'<p class="why">These runs differ in <b>{html.escape(", ".join(diff))}</b>: a column compares their '
                  f'policies only where nothing else differs.</p><div class="scroll">'
                  + _grid(["setting", *names], [[k, *[_plain(t["_settings"].get(k)) for t in table]] for k in diff])
                  + "</div>")
    shared = _grid(["setting", "all runs"], [[k, _plain(table[0]["_settings"].get(k))] for k in same]) if same else ""
    galleries = "".join(f'<div class="col"><h3>{html.escape(n)}</h3>{gallery(r, _last_step(r))}</div>'
                        for n, r in zip(names, runs) if r.rollouts)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>aquarelle compare: {html.escape(", ".join(names))}</title><style>{CSS}
.cols{{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}}.col{{flex:1 1 380px;min-width:0;max-width:100%}}
</style></head><body>
<h1>aquarelle compare</h1><p class="sub">{len(runs)} runs. The reward terms are the <b>judge</b> (pairwise against the
pool's references) and the <b>preference</b> scorer; presets weight them differently.</p>
<h2 id="settings">What differs</h2>{unlike}{shared}
<h2 id="table">Side by side</h2><div class="scroll">{_grid(list(COLUMNS), [[t[c] for c in COLUMNS] for t in table])}</div>
<p class="sub">An interval is Student's t over prompts (95%), given from 5 prompts; below that a held-out number rests
on too few paintings to rank runs by.</p>
<div class="plots">{_img(curves, "reward per step, all runs")}</div>
<h2 id="verdicts">Verdicts</h2>{_grid(["run"] + list(keys.values()), verdict_rows)}
<h2 id="gallery">Last step of each run</h2><div class="cols">{galleries}</div>
</body></html>"""


def write_compare(run_dirs: list[str | Path], out: str | Path, table: list[dict[str, Any]] | None = None,
                  runs: list[Run] | None = None) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build(run_dirs, table, runs), encoding="utf-8")
    return out


def print_table(table: list[dict[str, Any]], console=None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    # a row per measure and a column per run: a column per measure (11) folded every number in an 80-column
    # terminal ("-0.0" over "47")
    t = Table(title="aquarelle compare")
    rows = ("preset", "steps", "reward by thirds", "t-statistic", "bad paintings by thirds", "scorer gamed",
            "collapsed", "held-out gap", "held-out gap 95% interval", "held-out prompts x samples")
    t.add_column("run", no_wrap=True)
    for row in table:
        t.add_column(escape(_plain(row["run"])), overflow="fold")
    for c in rows:
        t.add_row(c, *[escape(_plain(row[c])) for row in table])
    console.print(t)


def _plain(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, list):
        return " -> ".join(_plain(x) for x in v)
    return str(v)
