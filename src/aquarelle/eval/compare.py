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
from .run import load_run

COLUMNS = ("run", "preset", "steps", "reward by thirds", "t-statistic", "bad paintings by thirds", "judge change",
           "preference change", "scorer gamed", "distance in group", "collapsed", "held-out reward", "held-out gap",
           "vs start (held-out)", "outside action space", "errors/episode")


def _eval_of(run) -> dict[str, Any]:
    ev = evaluate.read(run.path)
    return evaluate.evaluate(run.path, samples=0, progress=False) if ev is None else evaluate.refreshed(run, ev)


def rows(run_dirs: list[str | Path]) -> list[dict[str, Any]]:
    """One comparison row per run (from its eval.json, refreshed if training went on, or its rollouts when it has
    none)."""
    out = []
    for d in run_dirs:
        run = load_run(d)
        ev = _eval_of(run)
        rt, sa, dv, h, ta = ev["reward_trend"], ev["scorer_agreement"], ev["diversity"], ev["heldout"], ev["tool_adherence"]
        out.append({
            "run": run.name, "preset": ev.get("preset"), "steps": evaluate.steps_text(ev),
            "reward by thirds": rt["thirds"]["total"] if rt["thirds"] else None, "t-statistic": rt["trend"]["t_stat"],
            "bad paintings by thirds": ev["bad_rollouts"]["thirds"], "judge change": sa["judge_change"],
            "preference change": sa["preference_change"], "scorer gamed": sa["gamed"],
            "distance in group": dv["within_group"], "collapsed": dv["collapsed"],
            "held-out reward": (h.get("heldout") or {}).get("reward"), "held-out gap": (h.get("gap") or {}).get("reward"),
            "vs start (held-out)": (h.get("trained_vs_start") or {}).get("improvement"),
            "outside action space": ta["outside_rate"], "errors/episode": ta["errors_per_episode"],
            "_verdicts": ev["verdicts"],
        })
    return out


def _last_step(run) -> list:
    train = [x for x in run.rollouts if x.policy is None]
    last = max((x.step for x in train), default=None)
    return [x for x in train if x.step == last]


def build(run_dirs: list[str | Path], table: list[dict[str, Any]] | None = None) -> str:
    runs = [load_run(d) for d in run_dirs]
    table = table if table is not None else rows(run_dirs)
    curves = plots.overlay_rewards({r.name: [x for x in r.rollouts if x.policy is None] for r in runs})
    verdict_rows = [[t["run"]] + [v["text"] for v in t["_verdicts"].values()] for t in table]
    qs = [v["question"] for v in table[0]["_verdicts"].values()] if table else []
    galleries = "".join(f'<div class="col"><h3>{html.escape(r.name)}</h3>{gallery(r, _last_step(r))}</div>'
                        for r in runs if r.rollouts)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>aquarelle compare: {html.escape(", ".join(r.name for r in runs))}</title><style>{CSS}
.cols{{display:flex;gap:1em;align-items:flex-start}}.col{{flex:1;min-width:0}}</style></head><body>
<h1>aquarelle compare</h1><p class="sub">{len(runs)} runs. The reward terms are the <b>judge</b> (pairwise against the
pool's references) and the <b>preference</b> scorer; presets weight them differently.</p>
<h2 id="table">Side by side</h2><div class="scroll">{_grid(list(COLUMNS), [[t[c] for c in COLUMNS] for t in table])}</div>
<div class="plots">{_img(curves, "reward per step, all runs")}</div>
<h2 id="verdicts">Verdicts</h2>{_grid(["run"] + qs, verdict_rows)}
<h2 id="gallery">Last step of each run</h2><div class="cols">{galleries}</div>
</body></html>"""


def write_compare(run_dirs: list[str | Path], out: str | Path, table: list[dict[str, Any]] | None = None) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build(run_dirs, table), encoding="utf-8")
    return out


def print_table(table: list[dict[str, Any]], console=None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    t = Table(title="aquarelle compare")
    cols = ("run", "preset", "steps", "reward by thirds", "t-statistic", "bad paintings by thirds", "scorer gamed",
            "collapsed", "held-out gap")
    for c in cols:
        t.add_column(c, overflow="fold")
    for row in table:
        t.add_row(*[escape(_plain(row[c])) for c in cols])
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
