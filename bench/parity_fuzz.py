"""Native vs real p5.brush on random policy-like programs: where the two renderers part.

The parity bench measures likeness on hand-written paintings, which keep their shapes on
the canvas and their state in order. A policy does neither: it puts circles half off the
canvas, hatches with no stroke, stacks fills at random. Every place where the native
renderer parts from p5.brush there is a reward the policy can learn to farm (or a
painting it is wrongly punished for), so this bench draws random programs per family of
commands, with coordinates from a quarter canvas before it to a third past it, renders
each with both backends under the same seed, and sorts them:

- ``alike``: both painted, and area ratio, mean-colour distance and thumbnail correlation
  hold the parity goals (``parity_bench.GOALS``);
- ``both_faint``: both painted less than the gate's coverage (ratios of near-empty
  canvases say nothing);
- ``unlike``: both painted, and a likeness goal fails (the gate's verdict may differ:
  ``gate_differs``);
- ``native_guard``: the native renderer refused by design what the browser painted: the work
  budget (a flood of strokes that would take seconds) or a path p5.brush breaks on
  (``NATIVE_GUARDS``);
- ``refusal_mismatch``: one renderer refused the program (a sketch error) and the other
  painted it, for no reason on that list;
- ``both_refuse``: both refused.

Run: OMP_NUM_THREADS=1 .venv/bin/python -m bench.parity_fuzz [--n 40] [--families fills,strokes,...]
     [--seed 0] [--out bench/results] [--keep DIR]
Writes OUT/parity_fuzz.json and OUT/parity_fuzz_sheet.png (the pairs that parted, when any did), prints a table.
``--keep DIR`` writes every program as JSON (``aquarelle render`` reads them) to look at one again.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")

from aquarelle.brush.commands import BUILTIN_BRUSHES, BUILTIN_FIELDS  # noqa: E402
from bench.parity_bench import GOALS, both_faint, compare, contact_sheet, gate_coverage, verdicts  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SIZE = 600
GATE_COVERAGE = gate_coverage()
BRUSHES, FIELDS = BUILTIN_BRUSHES, BUILTIN_FIELDS
#: native refusals that are meant (see RELIABILITY.md): the render budget, and an open two-point curve, which
#: p5.brush paints as an empty path that throws in a fill and loses the next stroke
NATIVE_GUARDS = ("over the render budget", "make an empty path in p5.brush")


# ------------------------------------------------------------------ random programs


class Draw:
    """Random arguments the way a policy writes them: round numbers, canvas-ish coordinates that stray off it."""

    def __init__(self, rng: random.Random):
        self.r = rng

    def coord(self) -> int:
        return self.r.randint(-SIZE // 4, SIZE + SIZE // 3)

    def point(self) -> list[int]:
        return [self.coord(), self.coord()]

    def colour(self) -> str:
        return "#%06x" % self.r.randrange(1 << 24)

    def pick(self, xs):
        return self.r.choice(list(xs))

    def chance(self, p: float) -> bool:
        return self.r.random() < p


def _fill_state(d: Draw) -> list:
    calls = [("fill", [d.colour(), d.pick([40, 60, 80, 100, 130, 160, 200, 255])])]
    if d.chance(0.7):
        calls.append(("fillBleed", [d.pick([0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8]), d.pick(["out", "in"])]))
    if d.chance(0.5):
        calls.append(("fillTexture", [d.pick([0.0, 0.2, 0.4, 0.65, 0.9]), d.pick([0.0, 0.3, 0.6, 1.0])]))
    return calls


def _stroke_state(d: Draw) -> list:
    if d.chance(0.8):
        return [("set", [d.pick(BRUSHES), d.colour(), d.pick([1, 2, 3, 5, 8])])]
    return [("stroke", [d.colour()]), ("strokeWeight", [d.pick([1, 2, 4])])]


def _closed_shape(d: Draw) -> list:
    k = d.r.random()
    if k < 0.4:
        return [("circle", [*d.point(), d.r.randint(10, 400), d.pick([0, 0, 0.2, 0.5, 1.0])])]
    if k < 0.6:
        return [("rect", [*d.point(), d.r.randint(10, 500), d.r.randint(10, 500)])]
    if k < 0.85:
        pts = [d.point() for _ in range(d.r.randint(3, 7))]
        return [("beginShape", [d.pick([0, 0.3, 0.6, 1.0])]), *[("vertex", p) for p in pts], ("endShape", [True])]
    return [("polygon", [[d.point() for _ in range(d.r.randint(3, 6))]])]


def _open_path(d: Draw) -> list:
    k = d.r.random()
    if k < 0.35:
        return [("line", [*d.point(), *d.point()])]
    if k < 0.5:
        return [("flowLine", [*d.point(), d.r.randint(20, 500), d.r.randint(0, 359)])]
    if k < 0.7:
        return [("spline", [[d.point() for _ in range(d.r.randint(2, 5))], d.pick([0, 0.3, 0.7])])]
    if k < 0.85:
        calls = [("beginStroke", [d.pick(["curve", "segments"]), *d.point()])]
        calls += [("move", [d.r.randint(0, 359), d.r.randint(20, 200), d.pick([0.5, 1.0, 1.5])])
                  for _ in range(d.r.randint(1, 4))]
        return calls + [("endStroke", [d.r.randint(0, 359), d.pick([0.5, 1.0])])]
    return [("arc", [*d.point(), d.r.randint(10, 300), d.r.randint(0, 180), d.r.randint(180, 360)])]


def fills(d: Draw) -> list:
    """Watercolour fills and washes of closed shapes, no strokes."""
    calls = [("noStroke", [])]
    for _ in range(d.r.randint(1, 4)):
        if d.chance(0.15):
            calls += [("noFill", []), ("wash", [d.colour(), d.pick([60, 120, 200])])]
        else:
            calls += [("noWash", [])] + _fill_state(d)
        calls += _closed_shape(d)
    return calls


def strokes(d: Draw) -> list:
    """Brush strokes of every built-in brush along open paths and shape outlines, sometimes in a flow field."""
    calls = [("noFill", [])]
    for _ in range(d.r.randint(1, 5)):
        calls += _stroke_state(d)
        if d.chance(0.25):
            calls.append(("field", [d.pick(FIELDS)]) if d.chance(0.7) else ("noField", []))
        if d.chance(0.1):
            calls.append(("scaleBrushes", [d.pick([0.5, 1.5, 3])]))
        calls += _open_path(d) if d.chance(0.75) else _closed_shape(d)
    return calls


def hatching(d: Draw) -> list:
    """Hatches and masses over shapes, with and without fills and strokes."""
    calls = []
    for _ in range(d.r.randint(1, 3)):
        calls += _fill_state(d) if d.chance(0.5) else [("noFill", [])]
        calls += _stroke_state(d) if d.chance(0.5) else [("noStroke", [])]
        if d.chance(0.6):
            calls.append(("hatch", [d.pick([3, 5, 10, 20]), d.r.randint(0, 180)]))
            if d.chance(0.6):
                calls.append(("hatchStyle", [d.pick(BRUSHES), d.colour(), d.pick([1, 2])]))
        else:
            calls.append(("mass", [d.pick(BRUSHES), d.colour(), {"strength": d.pick([0.2, 0.5, 1.0])}]))
        calls += _closed_shape(d)
        calls += [("noHatch", []), ("noMass", [])]
    return calls


def extras(d: Draw) -> list:
    """The rarer calls: custom brushes and fields, hatch options, hatch and mass arrays, a fill's angle and
    scatter, reseeding and a background midway."""
    calls = []
    for _ in range(d.r.randint(1, 4)):
        k = d.r.random()
        if k < 0.2:
            name = f"b{d.r.randint(0, 9)}"
            params = {"weight": d.pick([1, 3, 8]), "scatter": d.pick([0, 0.5, 2]), "opacity": d.pick([40, 120, 200]),
                      "spacing": d.pick([0.3, 1, 3]), "type": d.pick(["default", "marker", "spray"])}
            if d.chance(0.5):
                params["pressure"] = d.pick([[0.5, 1.5], [1.2, 0.4], [0.6, 1.4, 0.6]])
            calls += [("add", [name, params]), ("set", [name, d.colour(), d.pick([1, 2, 4])])]
            calls += _open_path(d)
        elif k < 0.35:
            cols = d.r.randint(2, 6)
            grid = [[d.r.randint(-90, 90) for _ in range(d.r.randint(2, 6))]] * cols
            calls += [("addField", ["f", grid]), ("field", ["f"])] + _stroke_state(d) + _open_path(d)
            calls.append(("noField", []))
        elif k < 0.55:
            opts = {"rand": d.pick([False, 0.1, 0.4]), "continuous": d.chance(0.5), "gradient": d.pick([False, 0.3])}
            calls += _stroke_state(d) + [("hatch", [d.pick([4, 8, 15]), d.r.randint(0, 180), opts])]
            calls.append(("hatchArray", [[[d.point() for _ in range(d.r.randint(3, 5))]
                                          for _ in range(d.r.randint(1, 3))]]))
            calls.append(("noHatch", []))
        elif k < 0.65:
            calls += [("mass", [d.pick(BRUSHES), d.colour(), {"strength": d.pick([0.3, 1.0])}]),
                      ("massArray", [[[d.point() for _ in range(d.r.randint(3, 5))]]]), ("noMass", [])]
        elif k < 0.85:
            calls += [("noStroke", []), ("fill", [d.colour(), d.pick([80, 150])]),
                      ("fillBleed", [d.pick([0.1, 0.3, 0.6]), d.pick(["out", "in"]), d.r.randint(0, 359)]),
                      ("fillTexture", [d.pick([0.3, 0.7]), d.pick([0.2, 0.6]), d.chance(0.5)])]
            calls += _closed_shape(d)
        else:
            calls.append(d.pick([("seed", [d.r.randint(0, 999)]), ("noiseSeed", [d.r.randint(0, 999)]),
                                 ("background", [d.colour()]), ("scaleBrushes", [d.pick([0.5, 2])])]))
    return calls


def mixed(d: Draw) -> list:
    """A painting's worth of everything: a background, then fills, strokes and hatches in any order."""
    calls = [("background", [d.pick(["#ffffff", "#fffceb", "#f4ecd8", "#20242a"])])] if d.chance(0.5) else []
    for _ in range(d.r.randint(1, 3)):
        calls += d.pick([fills, strokes, hatching, extras])(d)
    return calls


FAMILIES: dict[str, Callable[[Draw], list]] = {"fills": fills, "strokes": strokes, "hatching": hatching,
                                               "extras": extras, "mixed": mixed}


def programs(family: str, n: int, seed: int) -> list:
    """``n`` programs of one family, the same ones for the same seed (each with its own p5.brush seed)."""
    from aquarelle.brush.program import Program

    rng = random.Random(f"{family}:{seed}")
    out = []
    for _ in range(n):
        calls = FAMILIES[family](Draw(rng))
        out.append(Program.from_calls(calls, width=SIZE, height=SIZE, seed=rng.randrange(1 << 31)))
    return out


# ------------------------------------------------------------------ comparison


def classify(row: dict) -> str:
    if "native_error" in row and "browser_error" in row:
        return "both_refuse"
    if "native_error" in row and any(g in row["native_error"] for g in NATIVE_GUARDS):
        return "native_guard"
    if "native_error" in row or "browser_error" in row:
        return "refusal_mismatch"
    if both_faint(row):
        return "both_faint"
    v = row["verdicts"]
    return "alike" if v["area"] and v["colour"] and v["structure"] else "unlike"


def run(families: list[str], n: int, seed: int, out_dir: Path, keep: Path | None) -> dict:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from aquarelle.render import background_of
    from aquarelle.render.browser import BrowserRenderer
    from aquarelle.render.errors import RenderError
    from aquarelle.render.native import render as native_render

    err = Console(stderr=True)
    todo = [(f, i, p) for f in families for i, p in enumerate(programs(f, n, seed))]
    rows: list[dict] = []
    images: dict[str, tuple] = {}
    t_start = time.time()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    browser = BrowserRenderer(pool_size=1, timeout_s=90)
    try:
        with Progress(console=err, transient=True) as prog:
            task = prog.add_task("parity fuzz", total=len(todo))
            for family, i, program in todo:
                name = f"{family}-{i:03d}"
                prog.update(task, description=name)
                row: dict = {"name": name, "source": family, "seed": program.seed,
                             "commands": len(program.commands)}
                if keep is not None:
                    (keep / f"{name}.json").write_text(program.model_dump_json(), encoding="utf-8")
                nat = bro = None
                try:
                    nat = native_render(program)
                except RenderError as e:
                    row["native_error"] = str(e).splitlines()[0]
                try:
                    bro = browser.render(program)
                except RenderError as e:
                    row["browser_error"] = str(e).splitlines()[0]
                if nat is not None and bro is not None:
                    row.update(compare(nat, bro, background_of(program)))
                    row["verdicts"] = verdicts(row)
                    row["gate_differs"] = ((row["coverage_native"] >= GATE_COVERAGE)
                                           != (row["coverage_browser"] >= GATE_COVERAGE))
                row["outcome"] = classify(row)
                if row["outcome"] == "unlike":
                    images[name] = (nat, bro)
                rows.append(row)
                prog.advance(task)
    finally:
        browser.close()

    outcomes = ("alike", "both_faint", "unlike", "native_guard", "refusal_mismatch", "both_refuse")
    per_family = {f: {o: sum(1 for r in rows if r["source"] == f and r["outcome"] == o) for o in outcomes}
                  for f in families}
    summary = {
        "programs": len(rows),
        "outcomes": {o: sum(1 for r in rows if r["outcome"] == o) for o in outcomes},
        "gate_differs": sum(1 for r in rows if r.get("gate_differs")),
        "per_family": per_family,
        "seconds": round(time.time() - t_start, 1),
    }
    result = {
        "benchmark": "parity_fuzz",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "settings": {"families": families, "n": n, "seed": seed, "size": SIZE, "gate_coverage": GATE_COVERAGE,
                     "goals": {k: v for k, v in GOALS.items() if k != "speed_ratio_min"}},
        "summary": summary,
        "programs": rows,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "parity_fuzz.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    parted = [r for r in rows if r["outcome"] == "unlike"]
    sheet = out_dir / "parity_fuzz_sheet.png"
    sheet.unlink(missing_ok=True)  # a sheet from an earlier run would show pairs that no longer part
    contact_sheet(parted, images, sheet)

    con = Console()
    table = Table(title=f"native vs p5.brush on {len(rows)} random programs (seed {seed})")
    table.add_column("family")
    for o in outcomes:
        table.add_column(o, justify="right")
    for f in families:
        table.add_row(f, *[str(per_family[f][o]) for o in outcomes])
    con.print(table)
    for r in rows:
        if r["outcome"] in ("unlike", "refusal_mismatch"):
            why = (r.get("native_error") or r.get("browser_error") if r["outcome"] == "refusal_mismatch" else
                   f"area {r['area_ratio']} colour {r['colour_distance']} corr {r['thumb_corr']}"
                   f"{' GATE' if r.get('gate_differs') else ''}")
            side = ("native refused" if "native_error" in r else "browser refused") \
                if r["outcome"] == "refusal_mismatch" else "unlike"
            con.print(f"  {r['name']}: {side}: {why}")
    return result


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40, help="programs per family")
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help=f"comma-separated, of: {', '.join(FAMILIES)}")
    ap.add_argument("--seed", type=int, default=0, help="which random programs")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder for parity_fuzz.json and the sheet")
    ap.add_argument("--keep", type=Path, default=None, help="write each program's JSON here")
    a = ap.parse_args(argv)
    families = [f.strip() for f in a.families.split(",") if f.strip()]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        ap.error(f"unknown family {', '.join(unknown) or '(none)'}; choose from {', '.join(FAMILIES)}")
    if a.n < 1:
        ap.error("--n must be at least 1")
    return run(families, a.n, a.seed, a.out, a.keep)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
