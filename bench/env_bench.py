"""Environment benchmark: concurrent WebSocket sessions against a real ``aquarelle serve`` on loopback.

For 1, 8, 32 and 64 sessions held at once: tools-step latency p50/p99 (all steps, and
split into state-only calls such as ``fill`` and painting calls that re-render), sketch
episodes per second, and the server's RSS before and after 1,000 connect/disconnect cycles.

Run: OMP_NUM_THREADS=1 .venv/bin/python -m bench.env_bench [--workers 2] [--cycles 1000]
Writes bench/results/env.json and prints a short table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.machine import cpu_model

os.environ.setdefault("OMP_NUM_THREADS", "1")

SKETCH = """
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  translate(-width / 2, -height / 2);
  brush.noStroke();
  brush.fill("#d7263d", 200);
  brush.circle(300, 300, 150);
  brush.fill("#1b998b", 180);
  brush.beginShape(0.4);
  brush.vertex(80, 500); brush.vertex(520, 480); brush.vertex(300, 380);
  brush.endShape(true);
  noLoop();
}
"""


def _episode_steps(i: int) -> list[tuple[str, dict]]:
    """A realistic tools episode: settings interleaved with painting calls (one tool call per step)."""
    x = 100 + (i * 37) % 400
    return [
        ("state", {"calls": [{"method": "fill", "args": ["#d7263d", 200]}]}),
        ("state", {"calls": [{"method": "fillBleed", "args": [0.25]}]}),
        ("paint", {"calls": [{"method": "circle", "args": [x, 250, 70]}]}),
        ("state", {"calls": [{"method": "fill", "args": ["#1b998b", 170]}]}),
        ("state", {"calls": [{"method": "fillTexture", "args": [0.4, 0.3]}]}),
        ("paint", {"calls": [{"method": "beginShape", "args": [0.4]},
                             *({"method": "vertex", "args": [x + dx, 450 + dy]} for dx, dy in
                               ((-60, 0), (60, -10), (0, -90))),
                             {"method": "endShape", "args": [True]}]}),
        ("look", {"calls": []}),
        ("state", {"calls": [{"method": "fill", "args": ["#f4d35e", 220]}]}),
        ("paint", {"calls": [{"method": "circle", "args": [x, 120, 40]}]}),
        ("state", {"calls": [{"method": "noFill", "args": []}]}),
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))], 2)


def _rss_mb(pid: int) -> dict:
    import psutil

    p = psutil.Process(pid)
    main = p.memory_info().rss
    kids = sum(c.memory_info().rss for c in p.children(recursive=True))
    return {"server_mb": round(main / 2**20, 1), "workers_mb": round(kids / 2**20, 1)}


async def _open(url: str, n: int) -> list:
    from aquarelle.env.client import WatercolourEnv

    clients = [WatercolourEnv(base_url=url, message_timeout_s=600) for _ in range(n)]
    await asyncio.gather(*(c.connect() for c in clients))
    return clients


async def _reset(c, **kw):
    """Reset, waiting while the previous round's sessions are still being torn down server-side."""
    for _ in range(100):
        try:
            return await c.reset(**kw)
        except RuntimeError as e:
            if "CAPACITY_REACHED" not in str(e):
                raise
            await asyncio.sleep(0.2)
    raise RuntimeError("server stayed at capacity for 20 s")


async def _tools_round(url: str, n: int) -> dict:
    clients = await _open(url, n)
    lat: dict[str, list[float]] = {"state": [], "paint": [], "look": []}

    async def run(i: int, c) -> None:
        await _reset(c, mode="tools", seed=i, max_steps=100)
        for kind, action in _episode_steps(i):
            t = time.perf_counter()
            r = await c.step(action)
            lat[kind].append((time.perf_counter() - t) * 1e3)
            assert not r.observation.errors, r.observation.errors
        r = await c.step({"finish": True})
        assert r.done

    t0 = time.perf_counter()
    await asyncio.gather(*(run(i, c) for i, c in enumerate(clients)))
    wall = time.perf_counter() - t0
    await asyncio.gather(*(c.close() for c in clients))
    allv = lat["state"] + lat["paint"] + lat["look"]
    return {
        "sessions_held": n, "steps": len(allv), "wall_s": round(wall, 2),
        "tools_step_ms": {"p50": _pct(allv, 50), "p99": _pct(allv, 99)},
        "state_step_ms": {"p50": _pct(lat["state"] + lat["look"], 50), "p99": _pct(lat["state"] + lat["look"], 99)},
        "paint_step_ms": {"p50": _pct(lat["paint"], 50), "p99": _pct(lat["paint"], 99)},
    }


async def _sketch_round(url: str, n: int, per_session: int) -> dict:
    clients = await _open(url, n)
    rewards: list[float | None] = []

    async def run(i: int, c) -> None:
        for k in range(per_session):
            await _reset(c, mode="sketch", seed=i * 100 + k)
            r = await c.step({"sketch": SKETCH})
            assert r.done and not r.observation.errors, r.observation.errors
            rewards.append(r.reward)

    t0 = time.perf_counter()
    await asyncio.gather(*(run(i, c) for i, c in enumerate(clients)))
    wall = time.perf_counter() - t0
    await asyncio.gather(*(c.close() for c in clients))
    return {"sessions": n, "episodes": len(rewards), "wall_s": round(wall, 2),
            "episodes_per_s": round(len(rewards) / wall, 2), "rewards_none": sum(r is None for r in rewards)}


async def _churn(url: str, cycles: int, concurrency: int = 16) -> None:
    from aquarelle.env.client import WatercolourEnv

    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            c = WatercolourEnv(base_url=url)
            await c.connect()
            await _reset(c, mode="tools", seed=i)
            await c.step({"calls": [{"method": "fill", "args": ["#336699", 120]}]})
            await c.close()

    await asyncio.gather(*(one(i) for i in range(cycles)))


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2, help="render/score processes in the server")
    ap.add_argument("--sessions", default="1,8,32,64")
    ap.add_argument("--sketch-per-session", type=int, default=2)
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--step-size", type=int, default=0, help="the server's --step-size (0: full-size step renders)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "env.json"))
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sessions.split(",")]
    import httpx
    from rich.progress import Progress

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "aquarelle.cli", "serve", "--port", str(port), "--max-sessions",
                             str(max(sizes)), "--workers", str(a.workers), "--step-size", str(a.step_size)],
                            stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.perf_counter()
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"server exited: {proc.stderr.read()[-2000:]}")
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        startup_s = time.perf_counter() - t0
        asyncio.run(_tools_round(url, 2))  # warm every path once
        tools, sketch = [], []
        with Progress(transient=True) as bar:
            task = bar.add_task("sessions", total=2 * len(sizes) + 1)
            for n in sizes:
                tools.append(asyncio.run(_tools_round(url, n)))
                bar.advance(task)
                sketch.append(asyncio.run(_sketch_round(url, n, a.sketch_per_session)))
                bar.advance(task)
            rss_before = _rss_mb(proc.pid)
            t = time.perf_counter()
            asyncio.run(_churn(url, a.cycles))
            churn_s = time.perf_counter() - t
            time.sleep(1.0)
            rss_after = _rss_mb(proc.pid)
            asyncio.run(_churn(url, a.cycles))  # a second round: growth that continues would show here
            time.sleep(1.0)
            rss_after2 = _rss_mb(proc.pid)
            bar.advance(task)
        cap = httpx.get(url + "/health").json()
    finally:
        proc.terminate()
        proc.wait(20)
    res = {
        "bench": "env", "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "host": platform.node(),
        "cpus": os.cpu_count(), "cpu_model": cpu_model(), "load_avg_at_end": os.getloadavg(), "server_workers": a.workers, "step_render_size": a.step_size or None,
        "server_startup_s": round(startup_s, 1), "tools": tools, "sketch": sketch,
        "churn": {"cycles": a.cycles, "wall_s": round(churn_s, 1), "rss_before": rss_before, "rss_after": rss_after,
                  "server_growth_mb": round(rss_after["server_mb"] - rss_before["server_mb"], 1),
                  "rss_after_second_round": rss_after2,
                  "second_round_growth_mb": round(rss_after2["server_mb"] - rss_after["server_mb"], 1)},
        "health_after": cap,
        "goals": {"sessions_held_64": any(t["sessions_held"] >= 64 for t in tools),
                  "tools_step_p50_le_10ms": {str(t["sessions_held"]): (t["tools_step_ms"]["p50"] or 1e9) <= 10
                                             for t in tools}},
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=2) + "\n")
    print(f"{'sessions':>8} {'step p50':>9} {'step p99':>9} {'state p50':>9} {'paint p50':>9} {'paint p99':>9} "
          f"{'sketch ep/s':>11}")
    for t, s in zip(tools, sketch):
        print(f"{t['sessions_held']:>8} {t['tools_step_ms']['p50']:>9} {t['tools_step_ms']['p99']:>9} "
              f"{t['state_step_ms']['p50']:>9} {t['paint_step_ms']['p50']:>9} {t['paint_step_ms']['p99']:>9} "
              f"{s['episodes_per_s']:>11}")
    c = res["churn"]
    print(f"churn {c['cycles']} cycles in {c['wall_s']} s: server RSS {c['rss_before']['server_mb']} -> "
          f"{c['rss_after']['server_mb']} MB ({c['server_growth_mb']:+} MB), after a second round "
          f"{c['rss_after_second_round']['server_mb']} MB ({c['second_round_growth_mb']:+} MB); workers "
          f"{c['rss_before']['workers_mb']} -> {c['rss_after_second_round']['workers_mb']} MB")
    return res


if __name__ == "__main__":
    main()
