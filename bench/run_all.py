"""Run every benchmark, one process each, and say which finished: what `make bench` runs.

Run: OMP_NUM_THREADS=1 .venv/bin/python -m bench.run_all [--only NAME]... [--skip NAME]... [--quick] [--results DIR]

Each benchmark writes its own JSON under bench/results/ (see its docstring). They run in
their own processes so one's kernels, threads and memory do not colour the next one's
numbers, cheapest first; a benchmark that fails is reported and the rest still run. The
exit status is 0 only if every selected benchmark finished. ``--quick`` runs each on
smaller settings (minutes in all instead of about an hour) to see that they work; its
numbers are not the ones to commit, so they go to a temporary folder unless ``--results``
says where (the full run's default is bench/results/, the committed numbers).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

RESULTS = Path(__file__).resolve().parent / "results"

#: (name, where its results go given the results folder, quick-run arguments), cheapest first; each
#: benchmark names its output its own way (a folder, or the JSON file itself)
BENCHMARKS: list[tuple[str, Callable[[Path], list[str]], list[str]]] = [
    ("render_bench", lambda d: ["--results", str(d)], ["--repeat", "1", "--no-pool"]),
    ("reward_bench", lambda d: ["--results", str(d)], []),
    ("parity_bench", lambda d: ["--out", str(d)], ["--limit", "4", "--no-baseline", "--no-calibration"]),
    ("parity_fuzz", lambda d: ["--out", str(d)], ["--n", "2"]),
    ("env_bench", lambda d: ["--out", str(d / "env.json")], ["--sessions", "1,8", "--cycles", "100"]),
    ("train_bench", lambda d: ["--results", str(d)], ["--gs", "2", "--steps", "1"]),
    ("soak_bench", lambda d: ["--out", str(d / "soak.json")], ["--minutes", "2", "--sessions", "8"]),
]
NAMES = [name for name, _, _ in BENCHMARKS]


@dataclass
class Outcome:
    name: str
    returncode: int
    seconds: float


def _names(value: str) -> str:
    if value not in NAMES:
        raise argparse.ArgumentTypeError(f"unknown benchmark {value!r} (one of: {', '.join(NAMES)})")
    return value


def commands(only: list[str] | None, skip: list[str] | None, quick: bool,
             results: Path) -> list[tuple[str, list[str]]]:
    """The command line of each selected benchmark, in run order, writing under ``results``."""
    chosen = []
    for name, out, small in BENCHMARKS:
        if (only and name not in only) or (skip and name in skip):
            continue
        chosen.append((name, [sys.executable, "-m", f"bench.{name}", *out(results), *(small if quick else [])]))
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run_all", description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", type=_names, help="run only this benchmark (repeatable)")
    ap.add_argument("--skip", action="append", type=_names, help="leave this benchmark out (repeatable)")
    ap.add_argument("--quick", action="store_true", help="smaller settings: see that each works, not numbers")
    ap.add_argument("--results", type=Path, default=None,
                    help="folder for every result (default bench/results/; with --quick a temporary folder)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands instead of running them")
    args = ap.parse_args(argv)
    results = args.results or (Path(tempfile.mkdtemp(prefix="aquarelle-bench-")) if args.quick else RESULTS)
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    todo = commands(args.only, args.skip, args.quick, results)
    if args.dry_run:
        for _, cmd in todo:
            print(" ".join(cmd))
        return 0
    outcomes = []
    for i, (name, cmd) in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {name}: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call(cmd, env=env)
        outcomes.append(Outcome(name, rc, time.perf_counter() - t0))
        print(f"[{i}/{len(todo)}] {name}: {'finished' if rc == 0 else f'FAILED (exit {rc})'} in "
              f"{outcomes[-1].seconds:.0f} s", file=sys.stderr, flush=True)
    print(f"results in {results}")
    print("benchmark      status   seconds")
    for o in outcomes:
        print(f"{o.name:<14} {'ok' if o.returncode == 0 else 'FAILED':<8} {o.seconds:7.0f}")
    failed = [o.name for o in outcomes if o.returncode != 0]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
