"""`make bench` runs bench/run_all.py: every benchmark it names exists, and a run writes where it is told."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run_all(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.run_all", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_every_benchmark_it_runs_is_a_module_with_a_main():
    from bench.run_all import NAMES

    assert set(NAMES) >= {"render_bench", "parity_bench", "reward_bench", "env_bench", "train_bench", "soak_bench"}
    for name in NAMES:
        assert callable(importlib.import_module(f"bench.{name}").main), name


def test_the_makefile_runs_it():
    assert "-m bench.run_all" in (ROOT / "Makefile").read_text()


def test_an_unknown_benchmark_is_one_line_naming_it():
    r = _run_all("--only", "render_benchh")
    assert r.returncode == 2
    assert "unknown benchmark 'render_benchh'" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_quick_run_writes_its_results_where_told_and_leaves_the_committed_ones(tmp_path):
    committed = ROOT / "bench" / "results" / "render_native.json"
    before = committed.read_bytes() if committed.exists() else None
    r = _run_all("--quick", "--only", "render_bench", "--results", str(tmp_path))
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads((tmp_path / "render_native.json").read_text())
    assert out["summary"]["paintings"] == len(list((ROOT / "bench" / "sketches").glob("*.js")))
    assert (tmp_path / "render_native.png").exists()
    assert "render_bench   ok" in r.stdout
    assert (committed.read_bytes() if committed.exists() else None) == before


def test_the_parity_fuzz_draws_the_same_valid_programs_for_a_seed_and_sorts_refusals():
    """bench/parity_fuzz.py: a seed names its programs (so a parted one can be looked at again), another seed
    draws others; a refusal the native renderer makes by design is not counted as a mismatch."""
    from bench.parity_fuzz import FAMILIES, classify, programs

    for family in FAMILIES:
        a, b = programs(family, 3, 0), programs(family, 3, 0)
        assert [p.model_dump() for p in a] == [p.model_dump() for p in b] and all(p.commands for p in a)
        assert [p.model_dump() for p in programs(family, 3, 1)] != [p.model_dump() for p in a]
    guard = {"native_error": "program is over the render budget: more than 1.2e+07 steps"}
    assert classify(guard) == "native_guard"
    assert classify({"native_error": "render: boom"}) == "refusal_mismatch"
    assert classify({"native_error": "x", "browser_error": "y"}) == "both_refuse"
    faint = {"coverage_native": 0.001, "coverage_browser": 0.002, "verdicts": {}}
    assert classify(faint) == "both_faint"


def test_the_parity_goals_hold_by_definition_only_where_both_renders_are_under_the_gate():
    """A painting both renderers paint under the gate's coverage (2 stray pixels against none) holds the area and
    colour goals, as the fuzz bench's ``both_faint`` does; one that either paints past the gate is held to them,
    and so is its structure, faint or not."""
    from aquarelle.rewards.gate import MIN_COVERAGE
    from bench.parity_bench import verdicts

    empty = {"coverage_native": 0.0, "coverage_browser": 0.0001, "area_ratio": 0.0, "colour_distance": None,
             "thumb_corr": 1.0, "speed_ratio": 200.0}
    assert verdicts(empty) == {"speed": True, "area": True, "colour": True, "structure": True}
    painted = dict(empty, coverage_browser=MIN_COVERAGE * 1.2, coverage_native=MIN_COVERAGE * 0.5, area_ratio=0.42)
    assert verdicts(painted)["area"] is False and verdicts(painted)["colour"] is False
    assert verdicts(dict(empty, thumb_corr=0.3))["structure"] is False


def test_results_name_the_cpu_model(tmp_path):
    """A timing is read against the machine it came from: the CPU model the kernel reports, not just a count."""
    from bench.machine import cpu_model, describe

    info = describe(load_avg=[1.0])
    assert info["cpu_model"] == cpu_model() and info["cpu_model"].strip()
    assert info["load_avg"] == [1.0] and info["cpus"] >= 1
    model_lines = [ln for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("model name")]
    if model_lines:  # Linux: the kernel's name for it, not the architecture
        assert info["cpu_model"] == model_lines[0].split(":", 1)[1].strip()
