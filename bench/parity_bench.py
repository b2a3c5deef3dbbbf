"""Native vs real p5.brush parity: speed and likeness on the same programs, in one run.

The native renderer is only as good as its likeness to the real p5.brush. Every
reference painting (pool/sketches) and a set of varied published-style sketches
(bench/sketches, bench/parity_sketches) go through the sandbox once; the resulting
program is rendered by both backends with the same seed. Per painting:

- speed ratio: browser ms / native ms (native: median of 3 warm runs; browser: one
  render on a warm browser, page reload + p5 + p5.brush + PNG, i.e. what a reward
  call would pay);
- painted-area ratio: native coverage / browser coverage (render.coverage);
- colour distance: RGB distance between the mean colours of each image's painted pixels;
- thumbnail correlation: Pearson correlation of 24x24 grey thumbnails.

Context for the likeness goals: the same program rendered by p5.brush itself under
another seed (``baseline``) shows how alike two real renders are, i.e. what a
native renderer with a different random stream can reach. A single-fill
calibration table (colour x opacity disks) shows fill strength differences.

Goals (issue 4): speed ratio >= 100, area ratio 0.67-1.5, colour distance <= 40,
thumbnail correlation >= 0.75, on every painting. A painting that both renderers paint
under the gate's coverage (``both_faint``: the gate scores both 0 whatever they look like)
holds the area and colour goals by definition, as in ``bench.parity_fuzz``: its ratio and
painted colour are a few stray pixels' (``landscape_empty``: 0 against p5.brush's 2 of
360,000); its numbers are kept in the row all the same.

Run: OMP_NUM_THREADS=1 .venv/bin/python -m bench.parity_bench [--only NAME] [--limit N]
Writes bench/results/parity.json and bench/results/parity_contact_sheet.png, prints a table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.machine import describe

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SOURCES = {
    "pool": ROOT / "pool" / "sketches",
    "bench": ROOT / "bench" / "sketches",
    "parity": ROOT / "bench" / "parity_sketches",
}
GOALS = {"speed_ratio_min": 100.0, "area_ratio": [0.67, 1.5], "colour_distance_max": 40.0, "thumb_corr_min": 0.75}
THUMB = 24


# ------------------------------------------------------------------ metrics


def painted_mask(img, background) -> "np.ndarray":  # noqa: F821 - numpy imported lazily
    import numpy as np

    from aquarelle.render.coverage import COVERAGE_TOLERANCE

    diff = np.abs(img.astype(np.int16) - np.asarray(background, np.int16)).max(axis=2)
    return diff > COVERAGE_TOLERANCE


def mean_painted_colour(img, background) -> list[float] | None:
    m = painted_mask(img, background)
    if not m.any():
        return None
    return [float(x) for x in img[m].reshape(-1, 3).mean(axis=0)]


def grey_thumb(img) -> "np.ndarray":  # noqa: F821
    import numpy as np
    from PIL import Image

    return np.asarray(Image.fromarray(img).convert("L").resize((THUMB, THUMB), Image.BOX), dtype=np.float64)


def thumb_corr(a, b) -> float | None:
    import numpy as np

    x, y = grey_thumb(a).ravel(), grey_thumb(b).ravel()
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def compare(native, browser, background) -> dict:
    """The likeness numbers for one painting (None where a number is undefined, e.g. an empty canvas)."""
    from aquarelle.render.coverage import coverage

    cn, cb = coverage(native, background), coverage(browser, background)
    mn, mb = mean_painted_colour(native, background), mean_painted_colour(browser, background)
    return {
        "coverage_native": round(cn, 4),
        "coverage_browser": round(cb, 4),
        "area_ratio": round(cn / cb, 3) if cb > 0 else None,
        "mean_colour_native": [round(v, 1) for v in mn] if mn else None,
        "mean_colour_browser": [round(v, 1) for v in mb] if mb else None,
        "colour_distance": round(math.dist(mn, mb), 2) if mn and mb else None,
        "thumb_corr": None if (c := thumb_corr(native, browser)) is None else round(c, 3),
    }


def compare_sets(natives: list, browsers: list, backgrounds: list) -> dict:
    """Likeness of two sets of renders of the same programs under several seeds: p5.brush's output is a random
    process, so this compares what the seeds share (mean coverage, mean painted colour, mean thumbnail)
    rather than one draw against another."""
    import numpy as np

    from aquarelle.render.coverage import coverage

    def side(imgs):
        cov = float(np.mean([coverage(im, bg) for im, bg in zip(imgs, backgrounds)]))
        cols = [c for im, bg in zip(imgs, backgrounds) if (c := mean_painted_colour(im, bg)) is not None]
        thumb = np.mean([grey_thumb(im) for im in imgs], axis=0)
        return cov, (np.mean(cols, axis=0) if cols else None), thumb.ravel()

    cn, mn, tn = side(natives)
    cb, mb, tb = side(browsers)
    corr = None if tn.std() == 0 or tb.std() == 0 else float(np.corrcoef(tn, tb)[0, 1])
    return {
        "seeds": len(natives),
        "coverage_native": round(cn, 4),
        "coverage_browser": round(cb, 4),
        "area_ratio": round(cn / cb, 3) if cb > 0 else None,
        "colour_distance": round(float(np.linalg.norm(mn - mb)), 2) if mn is not None and mb is not None else None,
        "thumb_corr": None if corr is None else round(corr, 3),
    }


def gate_coverage() -> float:
    """The gate's coverage floor: below it a painting scores 0 whatever it looks like."""
    from aquarelle.rewards.gate import MIN_COVERAGE

    return MIN_COVERAGE


def both_faint(row: dict) -> bool:
    """Both renders painted less than the gate's coverage: ratios of near-empty canvases say nothing."""
    cn, cb = row.get("coverage_native"), row.get("coverage_browser")
    return cn is not None and cb is not None and max(cn, cb) < gate_coverage()


def verdicts(row: dict) -> dict:
    g = GOALS
    sr, ar, cd, tc = row.get("speed_ratio"), row.get("area_ratio"), row.get("colour_distance"), row.get("thumb_corr")
    faint = both_faint(row)
    return {
        "speed": sr is not None and sr >= g["speed_ratio_min"],
        "area": faint or (ar is not None and g["area_ratio"][0] <= ar <= g["area_ratio"][1]),
        "colour": faint or (cd is not None and cd <= g["colour_distance_max"]),
        "structure": tc is not None and tc >= g["thumb_corr_min"],
    }


# ------------------------------------------------------------------ inputs


def collect(only: list[str] | None, sources: list[str]) -> list[tuple[str, str, Path]]:
    items = []
    for src in sources:
        d = SOURCES[src]
        for f in sorted(d.glob("*.js")) if d.is_dir() else []:
            if only and not any(o in f.stem for o in only):
                continue
            items.append((src, f.stem, f))
    return items


def chromium_version() -> str:
    try:
        out = subprocess.run(["/usr/bin/chromium", "--version"], capture_output=True, text=True, timeout=20).stdout
        return out.strip().splitlines()[-1] if out.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# ------------------------------------------------------------------ contact sheet


def contact_sheet(rows: list[dict], images: dict[str, tuple], path: Path, cell: int = 200, per_row: int = 3) -> None:
    """native | browser side by side per painting, with the numbers under each pair."""
    from PIL import Image, ImageDraw, ImageFont

    names = [r["name"] for r in rows if r["name"] in images]
    if not names:
        return
    pad, label_h, head_h = 10, 34, 30
    pair_w = 2 * cell + 4
    cols = min(per_row, len(names))
    nrows = math.ceil(len(names) / cols)
    W = pad + cols * (pair_w + pad)
    H = head_h + nrows * (cell + label_h + pad) + pad
    sheet = Image.new("RGB", (W, H), (236, 236, 236))
    d = ImageDraw.Draw(sheet)
    try:
        font = ImageFont.truetype("DejaVuSans.ttf", 11)
        bold = ImageFont.truetype("DejaVuSans-Bold.ttf", 13)
    except OSError:
        font = bold = ImageFont.load_default()
    d.text((pad, 8), "each pair: native (left) | real p5.brush in Chromium (right)", fill=(0, 0, 0), font=bold)
    by_name = {r["name"]: r for r in rows}
    for i, name in enumerate(names):
        r = by_name[name]
        x = pad + (i % cols) * (pair_w + pad)
        y = head_h + (i // cols) * (cell + label_h + pad)
        nat, bro = images[name]
        for j, img in enumerate((nat, bro)):
            sheet.paste(Image.fromarray(img).resize((cell, cell), Image.LANCZOS), (x + j * (cell + 4), y))
        v = r.get("verdicts", {})
        bad = [k for k in ("area", "colour", "structure") if not v.get(k)]
        colour = (170, 0, 0) if bad else (0, 100, 0)
        d.text((x, y + cell + 2), f"{r['source']}/{name}", fill=colour, font=font)
        d.text((x, y + cell + 17), (
            f"area {_fmt(r.get('area_ratio'))}  dRGB {_fmt(r.get('colour_distance'), 1)}  "
            f"corr {_fmt(r.get('thumb_corr'))}  x{_fmt(r.get('speed_ratio'), 0)}"
        ), fill=colour, font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path, optimize=True)


def _fmt(v, nd: int = 2) -> str:
    return "-" if v is None else f"{v:.{nd}f}"


# ------------------------------------------------------------------ single-fill calibration

CALIB_COLOURS = ("#d7263d", "#2e294e", "#1b998b", "#f2c14e")
CALIB_OPACITIES = (60, 120, 200)
#: a mid-size disk and a square filling most of the canvas (large fills differ more)
CALIB_SHAPES = {"disk r90": [("circle", [150, 150, 90])],
                "square 280": [("beginShape", [0]), ("vertex", [10, 10]), ("vertex", [290, 10]), ("vertex", [290, 290]),
                               ("vertex", [10, 290]), ("endShape", [True])]}


def fill_calibration(browser, native_render, seed: int) -> list[dict]:
    """One watercolour fill per shape x colour x opacity: how the two renderers' fill strength compares."""
    import numpy as np

    from aquarelle.brush.program import Program
    from aquarelle.render.coverage import coverage

    yy, xx = np.mgrid[0:300, 0:300]
    inner = {"disk r90": (xx - 150) ** 2 + (yy - 150) ** 2 <= (0.7 * 90) ** 2,
             "square 280": (abs(xx - 150) <= 100) & (abs(yy - 150) <= 100)}
    lum = np.array([0.299, 0.587, 0.114])
    out = []
    for shape, calls in CALIB_SHAPES.items():
        for colour in CALIB_COLOURS:
            for op in CALIB_OPACITIES:
                p = Program.from_calls([("background", ["#fffceb"]), ("noStroke", []), ("fill", [colour, op]), *calls],
                                       width=300, height=300)
                nat, bro = native_render(p, seed=seed), browser.render(p, seed=seed)
                mn, mb = nat[inner[shape]].mean(0), bro[inner[shape]].mean(0)
                cb = coverage(bro, (255, 252, 235))
                out.append({
                    "shape": shape, "colour": colour, "opacity": op,
                    "native_rgb": [int(round(v)) for v in mn], "browser_rgb": [int(round(v)) for v in mb],
                    "luminance_diff": round(float((mn - mb) @ lum), 1),
                    "colour_distance": round(float(np.linalg.norm(mn - mb)), 1),
                    "area_ratio": round(coverage(nat, (255, 252, 235)) / cb, 3) if cb > 0 else None,
                })
    return out


CALIB_BRUSHES = ("pen", "rotring", "2B", "HB", "2H", "cpencil", "pastel", "crayon", "charcoal", "spray", "marker")


def stroke_calibration(browser, native_render, seed: int) -> list[dict]:
    """One straight line per built-in brush, each in its own band: stroke darkness and width compared."""
    import numpy as np

    from aquarelle.brush.program import Program

    calls: list = [("background", ["#ffffff"])]
    for i, name in enumerate(CALIB_BRUSHES):
        calls += [("set", [name, "#1d3557", 1.5]), ("line", [40, 30 + 50 * i, 560, 30 + 50 * i])]
    p = Program.from_calls(calls, width=600, height=560)
    nat, bro = native_render(p, seed=seed), browser.render(p, seed=seed)
    lum = np.array([0.299, 0.587, 0.114])
    out = []
    for i, name in enumerate(CALIB_BRUSHES):
        band = slice(30 + 50 * i - 22, 30 + 50 * i + 22)
        mn, mb = painted_mask(nat[band], (255, 255, 255)), painted_mask(bro[band], (255, 255, 255))
        row = {"brush": name, "area_ratio": round(mn.sum() / mb.sum(), 3) if mb.any() else None}
        if mn.any() and mb.any():
            cn, cb = nat[band][mn].mean(0), bro[band][mb].mean(0)
            row["native_rgb"] = [int(round(v)) for v in cn]
            row["browser_rgb"] = [int(round(v)) for v in cb]
            row["luminance_diff"] = round(float((cn - cb) @ lum), 1)
            # ink = how much darker than paper, summed over the band: width x darkness in one number
            ink_n = float((255 - nat[band].astype(float) @ lum).sum())
            ink_b = float((255 - bro[band].astype(float) @ lum).sum())
            row["ink_ratio"] = round(ink_n / ink_b, 3) if ink_b > 0 else None
        out.append(row)
    return out


# ------------------------------------------------------------------ main


def _multi_seed(program, nat, bro, path, seed, seeds, baseline, browser, native_render, run_sketch, background_of,
                render_error) -> dict:
    """The painting under seeds seed..seed+n-1 in both backends (the sketch's own random() follows the seed too),
    compared as sets; with ``baseline``, p5.brush's seeds seed+n..seed+2n-1 against its first n."""
    nats, bros, bgs, progs = [nat], [bro], [background_of(program)], [program]
    try:
        for s in range(seed + 1, seed + seeds):
            res = run_sketch(path.read_text(encoding="utf-8"), seed=s)
            if not res.ok or res.program is None:
                return {"error": f"sandbox (seed {s}): {res.reason}"}
            progs.append(res.program)
            bgs.append(background_of(res.program))
            nats.append(native_render(res.program, seed=s))
            bros.append(browser.render(res.program, seed=s))
        out = compare_sets(nats, bros, bgs)
        out["verdicts"] = {k: v for k, v in verdicts(out).items() if k != "speed"}
        if baseline:
            others, obgs = [], []
            for s in range(seed + seeds, seed + 2 * seeds):
                res = run_sketch(path.read_text(encoding="utf-8"), seed=s)
                if not res.ok or res.program is None:
                    return out | {"baseline": {"error": f"sandbox (seed {s}): {res.reason}"}}
                obgs.append(background_of(res.program))
                others.append(browser.render(res.program, seed=s))
            b = compare_sets(others, bros, obgs)
            b["verdicts"] = {k: v for k, v in verdicts(b).items() if k != "speed"}
            out["baseline"] = b
        return out
    except render_error as e:
        return {"error": str(e)}


def run(only: list[str] | None = None, limit: int | None = None, sources: list[str] | None = None,
        out_dir: Path = RESULTS, seed: int = 0, native_repeats: int = 3, baseline: bool = True,
        calibration: bool = True, seeds: int = 1) -> dict:
    import numpy as np
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.render import background_of
    from aquarelle.render.browser import BrowserRenderer
    from aquarelle.render.errors import RenderError
    from aquarelle.render.native import render as native_render

    err = Console(stderr=True)
    load_start = [round(x, 2) for x in os.getloadavg()]  # the cores may be shared: timings say how busy they were
    items = collect(only, sources or list(SOURCES))
    if limit:
        items = items[:limit]
    if not items:
        raise SystemExit("parity bench: no sketches matched")
    rows: list[dict] = []
    images: dict[str, tuple] = {}
    browser = BrowserRenderer(pool_size=1, timeout_s=90)
    try:
        with Progress(console=err, transient=True) as prog:
            task = prog.add_task("parity", total=len(items))
            warmed = False
            for src, name, path in items:
                prog.update(task, description=f"{src}/{name}")
                row: dict = {"source": src, "name": name, "file": str(path.relative_to(ROOT))}
                rows.append(row)
                res = run_sketch(path.read_text(encoding="utf-8"), seed=seed)
                if not res.ok or res.program is None:
                    row["error"] = f"sandbox: {res.reason}"
                    prog.advance(task)
                    continue
                program = res.program
                row["commands"] = len(program.commands)
                bg = background_of(program)
                try:
                    if not warmed:  # numba compiles and the browser starts: not part of any painting's time
                        native_render(program, seed=seed)
                        browser.render(program, seed=seed)
                        warmed = True
                    times = []
                    for _ in range(native_repeats):
                        t0 = time.perf_counter()
                        nat = native_render(program, seed=seed)
                        times.append((time.perf_counter() - t0) * 1e3)
                    row["native_ms"] = round(statistics.median(times), 2)
                except RenderError as e:
                    row["error"] = f"native: {e}"
                    prog.advance(task)
                    continue
                try:
                    t0 = time.perf_counter()
                    bro = browser.render(program, seed=seed)
                    row["browser_ms"] = round((time.perf_counter() - t0) * 1e3, 1)
                except RenderError as e:
                    row["error"] = f"browser: {e}"
                    prog.advance(task)
                    continue
                if nat.shape != bro.shape:
                    row["error"] = f"shapes differ: native {nat.shape} vs browser {bro.shape}"
                    prog.advance(task)
                    continue
                row["speed_ratio"] = round(row["browser_ms"] / max(row["native_ms"], 1e-6), 1)
                row.update(compare(nat, bro, bg))
                row["verdicts"] = verdicts(row)
                if baseline:  # how alike p5.brush is to itself under another seed: the reachable likeness
                    try:
                        other = browser.render(program, seed=seed + 1)
                        b = compare(other, bro, bg)
                        row["baseline"] = {"area_ratio": b["area_ratio"], "colour_distance": b["colour_distance"],
                                           "thumb_corr": b["thumb_corr"]}
                        if b["thumb_corr"] is not None and row.get("thumb_corr") is not None:
                            # as alike as p5.brush is to itself (within 0.05), where that is below the goal
                            row["structure_vs_self"] = row["thumb_corr"] >= min(GOALS["thumb_corr_min"], b["thumb_corr"]) - 0.05
                    except RenderError as e:
                        row["baseline"] = {"error": str(e)}
                if seeds > 1:
                    row["multi_seed"] = _multi_seed(program, nat, bro, path, seed, seeds, baseline, browser,
                                                    native_render, run_sketch, background_of, RenderError)
                images[name] = (nat, bro)
                prog.advance(task)
        calib = fill_calibration(browser, native_render, seed) if calibration else []
        strokes = stroke_calibration(browser, native_render, seed) if calibration else []
    finally:
        browser.close()

    ok = [r for r in rows if "verdicts" in r]
    summary = {
        "paintings": len(rows),
        "compared": len(ok),
        "errors": len(rows) - len(ok),
        "median_native_ms": _med([r["native_ms"] for r in ok]),
        "median_browser_ms": _med([r["browser_ms"] for r in ok]),
        "median_speed_ratio": _med([r["speed_ratio"] for r in ok]),
        "min_speed_ratio": min((r["speed_ratio"] for r in ok), default=None),
        "median_area_ratio": _med([r["area_ratio"] for r in ok if r.get("area_ratio") is not None]),
        "median_colour_distance": _med([r["colour_distance"] for r in ok if r.get("colour_distance") is not None]),
        "median_thumb_corr": _med([r["thumb_corr"] for r in ok if r.get("thumb_corr") is not None]),
        "pass": {k: sum(r["verdicts"][k] for r in ok) for k in ("speed", "area", "colour", "structure")},
        "both_faint": [r["name"] for r in ok if both_faint(r)],
        "structure_vs_self": sum(bool(r.get("structure_vs_self")) for r in ok),
        "baseline_median_thumb_corr": _med([r["baseline"]["thumb_corr"] for r in ok
                                            if r.get("baseline", {}).get("thumb_corr") is not None]),
        "baseline_median_area_ratio": _med([r["baseline"]["area_ratio"] for r in ok
                                            if r.get("baseline", {}).get("area_ratio") is not None]),
        "all_goals_met": bool(ok) and len(ok) == len(rows) and all(all(r["verdicts"].values()) for r in ok),
    }
    multi = [r["multi_seed"] for r in ok if "verdicts" in r.get("multi_seed", {})]
    if multi:
        summary["multi_seed"] = {
            "seeds": seeds, "compared": len(multi),
            "pass": {k: sum(m["verdicts"][k] for m in multi) for k in ("area", "colour", "structure")},
            "baseline_pass": {k: sum(m["baseline"]["verdicts"][k] for m in multi if "verdicts" in m.get("baseline", {}))
                              for k in ("area", "colour", "structure")},
            "median_thumb_corr": _med([m["thumb_corr"] for m in multi if m.get("thumb_corr") is not None]),
            "baseline_median_thumb_corr": _med([m["baseline"]["thumb_corr"] for m in multi
                                                if m.get("baseline", {}).get("thumb_corr") is not None]),
        }
    report = {
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": describe(omp_threads=os.environ.get("OMP_NUM_THREADS"), chromium=chromium_version(),
                            load_average_start=load_start, load_average_end=[round(x, 2) for x in os.getloadavg()]),
        "versions": {"p5": "2.3.4", "p5.brush": "2.2.2"},
        "seed": seed,
        "seeds": seeds,
        "goals": GOALS,
        "summary": summary,
        "paintings": rows,
        "fill_calibration": calib,
        "stroke_calibration": strokes,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "parity.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    contact_sheet(rows, images, out_dir / "parity_contact_sheet.png")

    table = Table(title="native vs real p5.brush (goals: x>=100, area 0.67-1.5, dRGB<=40, corr>=0.75)")
    for col in ("painting", "native ms", "browser ms", "speed x", "area", "dRGB", "corr", "self corr", "ok"):
        table.add_column(col, justify="left" if col == "painting" else "right")
    for r in rows:
        if "verdicts" not in r:
            table.add_row(f"{r['source']}/{r['name']}", "-", "-", "-", "-", "-", "-", "-",
                          f"[red]{r.get('error', '')[:60]}[/red]")
            continue
        v = r["verdicts"]
        mark = "yes" if all(v.values()) else ",".join(k for k, x in v.items() if not x)
        table.add_row(f"{r['source']}/{r['name']}", _fmt(r["native_ms"], 1), _fmt(r["browser_ms"], 0),
                      _fmt(r["speed_ratio"], 0), _fmt(r.get("area_ratio")), _fmt(r.get("colour_distance"), 1),
                      _fmt(r.get("thumb_corr")), _fmt(r.get("baseline", {}).get("thumb_corr")), mark)
    out = Console(width=max(140, Console().width))
    out.print(table)
    s = summary
    out.print(
        f"{s['compared']}/{s['paintings']} compared; median native {_fmt(s['median_native_ms'], 1)} ms, browser "
        f"{_fmt(s['median_browser_ms'], 0)} ms, speed x{_fmt(s['median_speed_ratio'], 0)} (min x{_fmt(s['min_speed_ratio'], 0)}); "
        f"median area {_fmt(s['median_area_ratio'])}, dRGB {_fmt(s['median_colour_distance'], 1)}, corr "
        f"{_fmt(s['median_thumb_corr'])}; pass speed/area/colour/structure = "
        f"{s['pass']['speed']}/{s['pass']['area']}/{s['pass']['colour']}/{s['pass']['structure']} of {s['compared']}"
    )
    out.print(f"p5.brush against itself (seed {seed} vs {seed + 1}): median corr "
              f"{_fmt(s['baseline_median_thumb_corr'])}, area {_fmt(s['baseline_median_area_ratio'])}; native corr "
              f"within 0.05 of min(0.75, p5.brush's own) on {s['structure_vs_self']} of {s['compared']}")
    if "multi_seed" in s:
        m = s["multi_seed"]
        out.print(f"over seeds {seed}..{seed + seeds - 1} (means of coverage, painted colour and thumbnails): pass "
                  f"area/colour/structure = {m['pass']['area']}/{m['pass']['colour']}/{m['pass']['structure']} of "
                  f"{m['compared']}; p5.brush against its own seeds {seed + seeds}..{seed + 2 * seeds - 1}: "
                  f"{m['baseline_pass']['area']}/{m['baseline_pass']['colour']}/{m['baseline_pass']['structure']}; "
                  f"median corr native {_fmt(m['median_thumb_corr'])}, p5.brush {_fmt(m['baseline_median_thumb_corr'])}")
    if calib:
        ct = Table(title="single-fill calibration: mean colour of the fill's interior (native - browser)")
        for col in ("shape", "colour", "opacity", "native RGB", "browser RGB", "dLum", "dRGB", "area"):
            ct.add_column(col, justify="right")
        for c in calib:
            ct.add_row(c["shape"], c["colour"], str(c["opacity"]), str(c["native_rgb"]), str(c["browser_rgb"]),
                       _fmt(c["luminance_diff"], 1), _fmt(c["colour_distance"], 1), _fmt(c["area_ratio"]))
        out.print(ct)
    if strokes:
        st = Table(title="stroke calibration: one line per built-in brush (native / browser)")
        for col in ("brush", "area ratio", "ink ratio", "native RGB", "browser RGB", "dLum"):
            st.add_column(col, justify="right")
        for c in strokes:
            st.add_row(c["brush"], _fmt(c.get("area_ratio")), _fmt(c.get("ink_ratio")), str(c.get("native_rgb", "-")),
                       str(c.get("browser_rgb", "-")), _fmt(c.get("luminance_diff"), 1))
        out.print(st)
    out.print(f"wrote {out_dir / 'parity.json'} and {out_dir / 'parity_contact_sheet.png'}")
    return report


def _med(xs: list) -> float | None:
    return round(statistics.median(xs), 3) if xs else None


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="only sketches whose name contains this (repeatable)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many sketches")
    ap.add_argument("--sources", default=",".join(SOURCES), help="comma list of: " + ", ".join(SOURCES))
    ap.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-baseline", action="store_true", help="skip the browser-vs-browser (seed+1) baseline")
    ap.add_argument("--no-calibration", action="store_true", help="skip the single-fill calibration table")
    ap.add_argument("--seeds", type=int, default=1,
                    help="also compare each painting over this many seeds as sets (means over seeds); 1 = off")
    a = ap.parse_args(argv)
    if a.seeds < 1:
        ap.error("--seeds must be at least 1")
    srcs = [s.strip() for s in a.sources.split(",") if s.strip()]
    bad = [s for s in srcs if s not in SOURCES]
    if bad:
        ap.error(f"unknown source(s) {', '.join(bad)} (known: {', '.join(SOURCES)})")
    return run(only=a.only, limit=a.limit, sources=srcs, out_dir=a.out, seed=a.seed,
               baseline=not a.no_baseline, calibration=not a.no_calibration, seeds=a.seeds)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    main()
