"""Native renderer benchmark: cost per painting at 600x600 on one core, and how it grows.

Run: OMP_NUM_THREADS=1 .venv/bin/python -m bench.render_bench [--repeat 3] [--no-pool]
Renders bench/sketches/*.js (a dozen published-style sketches) and the reference pool
(pool/sketches/*.js) through the sandbox once, then times the render alone. Writes
bench/results/render_native.json, a plot render_native.png (cost vs shapes and vs size)
and a contact sheet render_native_sheet.png of the bench sketches; prints a short table.

Times: ``cpu_ms`` is the render's own CPU time (process_time; one core, what the goal
means, and robust on a shared machine), ``wall_ms`` the elapsed time. The best of
``--repeat`` runs is kept per painting; p50/p99 are over paintings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from bench.machine import describe

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def _time(fn, repeat: int) -> tuple[float, float]:
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        best_cpu = min(best_cpu, (time.process_time() - c0) * 1000)
        best_wall = min(best_wall, (time.perf_counter() - w0) * 1000)
    return round(best_cpu, 2), round(best_wall, 2)


def _pct(xs: list[float], q: float) -> float:
    import numpy as np

    return round(float(np.percentile(np.asarray(xs), q)), 2) if xs else float("nan")


def _load(paths: list[Path]) -> dict:
    from aquarelle.brush.sandbox import run_sketch

    progs = {}
    for p in paths:
        r = run_sketch(p.read_text(encoding="utf-8"))
        if r.ok and r.program is not None:
            progs[p] = r.program
        else:
            print(f"{p}: {r.reason}", file=sys.stderr)
    return progs


def _synthetic(n_fills: int, n_strokes: int, seed: int = 0, side: int = 600):
    """Fills and strokes at random on a 600 px canvas, or the same painting drawn on a ``side`` px one."""
    import numpy as np

    from aquarelle.brush import Program

    k = side / 600
    rng = np.random.default_rng(seed)
    calls = [("scaleBrushes", [k]), ("background", ["#fbf7ee"]), ("noStroke", []), ("fillTexture", [0.5, 0.5]),
             ("fillBleed", [0.2])]
    pal = ["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51"]
    for i in range(n_fills):
        x, y = rng.uniform(80, 520, 2)
        calls += [("fill", [pal[i % 5], 120]), ("circle", [float(x * k), float(y * k), 60 * k])]
    calls += [("noFill", []), ("set", ["2B", "#333333", 2])]
    for _ in range(n_strokes):
        x, y = rng.uniform(0, 600, 2)
        x2, y2 = x + rng.uniform(-200, 200), y + rng.uniform(-200, 200)
        calls.append(("line", [float(x * k), float(y * k), float(x2 * k), float(y2 * k)]))
    return Program.from_calls(calls if k != 1 else calls[1:], width=side, height=side)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-pool", action="store_true", help="only the bench sketches")
    ap.add_argument("--results", type=Path, default=RESULTS, help="folder for the JSON and plots")
    args = ap.parse_args(argv)
    results = args.results

    from PIL import Image

    from aquarelle.render import background_of
    from aquarelle.render.coverage import coverage
    from aquarelle.render.native import render, render_full

    bench_paths = sorted((ROOT / "bench" / "sketches").glob("*.js"))
    pool_paths = [] if args.no_pool else sorted((ROOT / "pool" / "sketches").glob("*.js"))
    progs = _load(bench_paths + pool_paths)
    render(_synthetic(1, 1))  # compile / load the kernels (not timed)

    rows = []
    images = {}
    for path, prog in progs.items():
        res = render_full(prog, size=600)
        cpu, wall = _time(lambda: render(prog, size=600), args.repeat)
        s = prog.summary()
        rows.append({"sketch": str(path.relative_to(ROOT)), "set": "bench" if path in bench_paths else "pool",
                     "cpu_ms": cpu, "wall_ms": wall, "shapes": s["shapes"], "fills": int(res.stats.get("fills", 0)),
                     "brush_steps": int(res.stats.get("steps", 0)),
                     "coverage": round(coverage(res.image, background_of(prog)), 4), "warnings": res.warnings})
        if path in bench_paths:
            images[path.stem] = res.image
        print(f"{rows[-1]['sketch']:<48} {cpu:8.1f} ms cpu {wall:8.1f} ms wall  fills {rows[-1]['fills']:3d}",
              file=sys.stderr)

    cpus = [r["cpu_ms"] for r in rows]
    walls = [r["wall_ms"] for r in rows]
    summary = {"paintings": len(rows), "cpu_p50_ms": _pct(cpus, 50), "cpu_p99_ms": _pct(cpus, 99),
               "wall_p50_ms": _pct(walls, 50), "wall_p99_ms": _pct(walls, 99),
               "goal": {"p50_ms": 20, "p99_ms": 100},
               "browser_reference_s": 1.75, "speedup_vs_browser_p50": round(1750 / max(_pct(cpus, 50), 1e-9), 1)}

    scaling_shapes = []
    for n in (1, 2, 4, 8, 16, 32):
        cpu_f, _ = _time(lambda: render(_synthetic(n, 0)), args.repeat)
        cpu_s, _ = _time(lambda: render(_synthetic(0, n)), args.repeat)
        scaling_shapes.append({"n": n, "fills_cpu_ms": cpu_f, "strokes_cpu_ms": cpu_s})
    scaling_size = []
    for size in (150, 300, 600, 1200):
        ref = _synthetic(8, 8, side=size)
        cpu, _ = _time(lambda: render(ref), args.repeat)
        scaling_size.append({"size": size, "cpu_ms": cpu})

    out = {"benchmark": "render_native", "machine": describe(load_avg=list(os.getloadavg())),
           "summary": summary, "paintings": rows, "cost_vs_shapes": scaling_shapes, "cost_vs_size": scaling_size}
    results.mkdir(parents=True, exist_ok=True)
    (results / "render_native.json").write_text(json.dumps(out, indent=1))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ns = [r["n"] for r in scaling_shapes]
    ax[0].plot(ns, [r["fills_cpu_ms"] for r in scaling_shapes], "o-", label="watercolour fills (r=60)")
    ax[0].plot(ns, [r["strokes_cpu_ms"] for r in scaling_shapes], "s-", label="2B strokes")
    ax[0].set(xscale="log", yscale="log", xlabel="shapes", ylabel="cpu ms (600x600)", title="cost vs shapes")
    ax[0].legend()
    ax[1].plot([r["size"] for r in scaling_size], [r["cpu_ms"] for r in scaling_size], "o-")
    ax[1].set(xscale="log", yscale="log", xlabel="canvas side (px)", ylabel="cpu ms", title="cost vs size (8 fills + 8 strokes)")
    fig.tight_layout()
    fig.savefig(results / "render_native.png", dpi=90)
    if images:
        tiles = [Image.fromarray(images[k]).resize((300, 300)) for k in sorted(images)]
        cols = 4
        sheet = Image.new("RGB", (cols * 300, ((len(tiles) + cols - 1) // cols) * 300), "white")
        for i, t in enumerate(tiles):
            sheet.paste(t, ((i % cols) * 300, (i // cols) * 300))
        sheet.save(results / "render_native_sheet.png")

    print(f"paintings {summary['paintings']}: cpu p50 {summary['cpu_p50_ms']} ms, p99 {summary['cpu_p99_ms']} ms "
          f"(goal 20 / 100); wall p50 {summary['wall_p50_ms']} ms, p99 {summary['wall_p99_ms']} ms")
    print("shapes  fills_ms  strokes_ms")
    for r in scaling_shapes:
        print(f"{r['n']:6d} {r['fills_cpu_ms']:9.1f} {r['strokes_cpu_ms']:11.1f}")
    print("size  cpu_ms")
    for r in scaling_size:
        print(f"{r['size']:5d} {r['cpu_ms']:7.1f}")
    return out


if __name__ == "__main__":
    main()
