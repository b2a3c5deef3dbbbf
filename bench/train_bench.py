"""GRPO on the CPU default: seconds per step, peak memory and env_time_share for G = 2, 4, 8.

Each G runs in its own process (so peak RSS is that run's own) through the same code
path as `aquarelle train` (tools mode, judge-led, the cached warm start). Writes
bench/results/train.json and prints a short table.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.train_bench [--gs 2,4,8] [--steps 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.machine import cpu_model

OUT = Path(__file__).parent / "results" / "train.json"


def child(g: int, steps: int, out: str, model: str, max_len: int) -> None:
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train

    cfg = load_config(None, {"generation.num_generations": g, "optim.max_steps": steps, "model.name": model,
                             "generation.max_completion_length": max_len})
    t0 = time.perf_counter()
    summary = train(cfg, out)
    summary["wall_s"] = time.perf_counter() - t0
    summary["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("BENCH " + json.dumps(summary), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gs", default="2,4,8")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--max-completion-length", type=int, default=640)
    ap.add_argument("--child", type=int, default=None)
    ap.add_argument("--out", default=None, help="(the child's run directory)")
    ap.add_argument("--results", type=Path, default=OUT.parent, help="folder for train.json")
    a = ap.parse_args()
    out = a.results / OUT.name
    if a.child is not None:
        return child(a.child, a.steps, a.out, a.model, a.max_completion_length)
    env = dict(os.environ, OMP_NUM_THREADS="1", TRL_EXPERIMENTAL_SILENCE="1")
    rows = []
    for g in [int(x) for x in a.gs.split(",")]:
        with tempfile.TemporaryDirectory() as d:
            run = Path(d) / "run"
            p = subprocess.run([sys.executable, "-m", "bench.train_bench", "--child", str(g), "--steps", str(a.steps),
                                "--out", str(run), "--model", a.model,
                                "--max-completion-length", str(a.max_completion_length)],
                               env=env, capture_output=True, text=True, cwd=Path(__file__).parents[1])
            line = next((x for x in p.stdout.splitlines() if x.startswith("BENCH ")), None)
            if p.returncode != 0 or line is None:
                print(f"G={g}: failed\n{p.stderr[-2000:]}", file=sys.stderr)
                rows.append({"G": g, "error": (p.stderr.strip().splitlines() or ["?"])[-1]})
                continue
            s = json.loads(line[6:])
            metrics = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
            rows.append({
                "G": g, "steps": len(metrics),
                "step_time_s": [m["step_time"] for m in metrics],
                "step_time_mean_s": sum(m["step_time"] for m in metrics) / len(metrics),
                "env_time_share": [m["env_time_share"] for m in metrics],
                "env_time_share_mean": sum(m["env_time_share"] for m in metrics) / len(metrics),
                "completion_len_mean": [m["completion_len_mean"] for m in metrics],
                "tool_calls_mean": [m["tool_calls_mean"] for m in metrics],
                "reward": [m["reward"] for m in metrics],
                "peak_rss_mb": round(s["peak_rss_mb"], 1),
                "wall_s": round(s["wall_s"], 1),
            })
    import platform

    result = {"what": "GRPO steps of the CPU default (SmolLM2-135M, tools mode, hf10, judge-led, warm-started)",
              "model": a.model, "max_completion_length": a.max_completion_length, "omp_threads": 1,
              "cpus": os.cpu_count(), "machine": platform.machine(), "cpu_model": cpu_model(),
              "date": time.strftime("%Y-%m-%d"),
              "rows": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"{'G':>3} {'s/step':>8} {'env share':>10} {'peak MB':>8} {'tokens':>7}")
    for r in rows:
        if "error" in r:
            print(f"{r['G']:>3} error: {r['error']}")
            continue
        toks = sum(x or 0 for x in r["completion_len_mean"]) / max(len(r["completion_len_mean"]), 1)
        print(f"{r['G']:>3} {r['step_time_mean_s']:>8.1f} {r['env_time_share_mean']:>10.3f} {r['peak_rss_mb']:>8.0f} "
              f"{toks:>7.0f}")
    print(f"wrote {out}")
    if all("error" in r for r in rows):
        sys.exit("train_bench: every run failed (see above)")


if __name__ == "__main__":
    main()
