"""Load and soak: many concurrent sessions on one `aquarelle serve` (loopback only) for minutes.

What it proves and measures (bench/results/soak.json):
- ``sessions`` WebSocket sessions at once: sessions-2 steady clients looping mixed sketch and
  tools episodes (with a think time between steps, as a policy generating tokens would), one
  TRL-style trainer (a reused ``make_tool_env(env_urls=...)`` instance read through
  ``train.envglue.finish_episode``, as the GRPO reward function does) and one victim slot.
- latency p50/p99 per call kind, errors, None rewards, server RSS (server + pool + sandbox
  workers) over time and its growth;
- victims: a client process killed mid-episode (SIGKILL: its socket closes) or hung (SIGSTOP:
  the socket stays open) while the server is full; how long until its slot serves someone else;
- a server restarted mid-run (SIGTERM, same port): the trainer must go on (its tool env
  reconnects) and steady clients reconnect.

    python -m bench.soak_bench [--minutes 10] [--sessions 64]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from collections import defaultdict
from pathlib import Path

from bench.machine import describe

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results" / "soak.json"

SKETCH = textwrap.dedent("""
    function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
    function draw() {
      translate(-width / 2, -height / 2);
      brush.noStroke();
      brush.fillBleed(%(bleed)s);
      brush.fill("%(c1)s", 190);
      brush.circle(%(x)d, %(y)d, %(r)d, 0.3);
      brush.fill("%(c2)s", 150);
      brush.beginShape(0.4);
      for (let i = 0; i < 7; i++) brush.vertex(%(x)d + 160 * cos(i * 51), 420 + 60 * sin(i * 51));
      brush.endShape(true);
    }
""")
COLOURS = ["#d7263d", "#1b998b", "#f4d35e", "#2e294e", "#e08e45", "#5c80bc"]

# A client that takes a session mid-episode and keeps it busy until killed or stopped (raw OpenEnv protocol).
VICTIM = """
import json, sys, time
from websockets.sync.client import connect
with connect(sys.argv[1].replace("http://", "ws://") + "/ws", open_timeout=60) as ws:
    ws.send(json.dumps({"type": "reset", "data": {"mode": "tools", "max_steps": 10000}}))
    msg = json.loads(ws.recv())
    if msg.get("type") != "observation":
        print("refused " + json.dumps(msg)[:200], flush=True); sys.exit(1)
    ws.send(json.dumps({"type": "step", "data": {"calls": [{"method": "fill", "args": ["#224488", 200]}]}}))
    ws.recv()
    print("ready", flush=True)
    while True:
        ws.send(json.dumps({"type": "step", "data": {"calls": []}}))
        ws.recv()
        time.sleep(0.5)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))], 4)


class Stats:
    """Thread-safe counters for the whole run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lat: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.error_examples: dict[str, str] = {}
        self.episodes: dict[str, int] = defaultdict(int)
        self.rewards_none = 0
        self.in_restart = threading.Event()

    def time(self, kind: str, s: float) -> None:
        with self.lock:
            self.lat[kind].append(s)

    def error(self, kind: str, msg: str) -> None:
        key = kind + (" (during restart)" if self.in_restart.is_set() else "")
        with self.lock:
            self.errors[key] += 1
            self.error_examples.setdefault(key, msg[:300])

    def episode(self, kind: str, reward: float | None) -> None:
        with self.lock:
            self.episodes[kind] += 1
            self.rewards_none += reward is None


# --------------------------------------------------------------------------- the server


class Server:
    def __init__(self, port: int, sessions: int, workers: int, idle_timeout: float) -> None:
        self.port, self.sessions, self.workers, self.idle_timeout = port, sessions, workers, idle_timeout
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> float:
        import httpx

        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aquarelle.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--max-sessions", str(self.sessions), "--workers", str(self.workers),
             "--idle-timeout", str(self.idle_timeout)],
            env=dict(os.environ, OMP_NUM_THREADS="1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while time.monotonic() - t0 < 180:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return time.monotonic() - t0
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("server did not become healthy in 180 s")

    def tree(self) -> list:
        import psutil

        try:
            p = psutil.Process(self.proc.pid)
            return [p] + p.children(recursive=True)
        except (psutil.NoSuchProcess, AttributeError):
            return []

    def rss_mb(self) -> float:
        total = 0
        for p in self.tree():
            try:
                total += p.memory_info().rss
            except Exception:  # noqa: BLE001 - a worker that just exited
                pass
        return round(total / 2**20, 1)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL what is left of this server's own process tree."""
        if self.proc is None:
            return
        kids = self.tree()[1:]
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for k in kids:
            try:
                k.kill()
            except Exception:  # noqa: BLE001 - already gone
                pass


# --------------------------------------------------------------------------- clients


def client(url: str):
    from aquarelle.env.client import WatercolourEnv

    env = WatercolourEnv(base_url=url, message_timeout_s=600).sync()
    env.connect()
    return env


def sketch_episode(env, rng: random.Random, stats: Stats) -> None:
    t = time.monotonic()
    env.reset(mode="sketch", seed=rng.randrange(1000), prompt="a pond")
    stats.time("reset", time.monotonic() - t)
    src = SKETCH % {"bleed": round(rng.uniform(0.05, 0.3), 2), "c1": rng.choice(COLOURS), "c2": rng.choice(COLOURS),
                    "x": rng.randrange(150, 450), "y": rng.randrange(150, 300), "r": rng.randrange(60, 160)}
    t = time.monotonic()
    r = env.step({"sketch": src})
    stats.time("sketch_step", time.monotonic() - t)
    obs = r.observation
    if any(e.startswith("infrastructure") for e in obs.errors) or r.reward is None:
        stats.error("sketch: no reward", "; ".join(obs.errors) or obs.text)
    elif obs.errors:
        stats.error("sketch: rejected", "; ".join(obs.errors))
    stats.episode("sketch", r.reward)


def tools_episode(env, rng: random.Random, stats: Stats, think_s: float, stop: threading.Event) -> None:
    t = time.monotonic()
    env.reset(mode="tools", seed=rng.randrange(1000), prompt="a garden", max_steps=12)
    stats.time("reset", time.monotonic() - t)
    steps = [[{"method": "fill", "args": [rng.choice(COLOURS), rng.randrange(120, 230)]}]]
    for _ in range(rng.randrange(2, 5)):
        x, y = rng.randrange(80, 520), rng.randrange(80, 520)
        if rng.random() < 0.5:
            steps.append([{"method": "circle", "args": [x, y, rng.randrange(30, 110)]}])
        else:
            pts = [[x + rng.randrange(-90, 90), y + rng.randrange(-90, 90)] for _ in range(5)]
            steps.append([{"method": "beginShape", "args": [0.5]}] + [{"method": "vertex", "args": p} for p in pts]
                         + [{"method": "endShape", "args": [True]}])
        if rng.random() < 0.3:
            steps.append([{"method": "fill", "args": [rng.choice(COLOURS), 160]}])
    for calls in steps:
        if stop.wait(rng.uniform(0.5, 1.5) * think_s):
            return
        t = time.monotonic()
        r = env.step({"calls": calls})
        stats.time("tool_step", time.monotonic() - t)
        if r.observation.errors:
            stats.error("tools: step error", "; ".join(r.observation.errors))
    t = time.monotonic()
    r = env.step({"finish": True})
    stats.time("finish", time.monotonic() - t)
    if r.reward is None:
        stats.error("tools: no reward", r.observation.text)
    stats.episode("tools", r.reward)


def steady(i: int, url: str, stats: Stats, stop: threading.Event, think_s: float, start_by: float) -> None:
    rng = random.Random(i)
    env = None
    time.sleep(start_by * i)  # ramp up
    while not stop.is_set():
        try:
            if env is None:
                env = client(url)
            if rng.random() < 0.5:
                sketch_episode(env, rng, stats)
            else:
                tools_episode(env, rng, stats, think_s, stop)
            stop.wait(rng.uniform(0, think_s))
        except Exception as e:  # noqa: BLE001 - counted; reconnect with a backoff
            stats.error(f"client: {type(e).__name__}", str(e))
            try:
                env.close()
            except Exception:  # noqa: BLE001
                pass
            env = None
            stop.wait(2 + rng.random() * 2)
    if env is not None:
        try:
            env.close()
        except Exception:  # noqa: BLE001
            pass


def trainer(url: str, stats: Stats, stop: threading.Event, out: dict, think_s: float) -> None:
    """What TRL does with environment_factory: one reused instance, tool calls (errors shown to the model),
    then the reward function reads the episode through finish_episode. An exception here loses the trainer."""
    from aquarelle.train import ToolError, make_tool_env
    from aquarelle.train.envglue import finish_episode

    Env = make_tool_env(mode="tools", env_urls=[url], max_steps=12)
    env = Env()
    rng = random.Random(99)
    try:
        while not stop.is_set():
            t0 = time.monotonic()
            env.reset(prompt="a red sun over the sea", seed=rng.randrange(100))
            for call in (lambda: env.fill("#d7263d", 200), lambda: env.circle(300, 250, 90),
                         lambda: env.fill("#5c80bc", 150), lambda: env.shape([[0, 400], [600, 400], [600, 600], [0, 600]], 0.2)):
                if stop.wait(think_s):
                    break
                try:
                    call()
                except ToolError as e:  # TRL shows {'error': ...} to the model and goes on
                    out["tool_errors"] += 1
                    out.setdefault("tool_error_examples", []).append(str(e)[:200])
            o = finish_episode(env)
            out["episodes"] += 1
            out["rewards"].append(o.reward)
            stats.time("trainer_episode", time.monotonic() - t0)
    except Exception as e:  # noqa: BLE001
        out["lost"] = f"{type(e).__name__}: {str(e)[:300]}"
    finally:
        env._backend.close()


def victims(server: Server, stats: Stats, stop: threading.Event, out: list, every_s: float) -> None:
    """Fill the last slot with a client process, kill or hang it, time until the slot serves a new client."""
    from aquarelle.env.client import WatercolourEnv

    kinds = ["killed", "hung"]
    n = 0
    while not stop.wait(every_s):
        if stats.in_restart.is_set():
            continue
        kind = kinds[n % 2]
        n += 1
        rec: dict = {"kind": kind}
        p = subprocess.Popen([sys.executable, "-c", VICTIM, server.url], stdout=subprocess.PIPE, text=True)
        try:
            line = p.stdout.readline().strip()
            if line != "ready":
                rec["skipped"] = f"victim did not get a slot: {line[:200]}"
                out.append(rec)
                continue
            probe = WatercolourEnv(base_url=server.url).sync()
            try:
                probe.reset(mode="tools")
                rec["full_before"] = False  # someone else's slot was free (a client reconnecting)
            except Exception as e:  # noqa: BLE001
                rec["full_before"] = "CAPACITY_REACHED" in str(e)
            finally:
                probe.close()
            t0 = time.monotonic()
            p.send_signal(signal.SIGKILL if kind == "killed" else signal.SIGSTOP)
            while not stop.is_set() and time.monotonic() - t0 < 600:
                probe = WatercolourEnv(base_url=server.url).sync()
                try:
                    probe.reset(mode="tools")
                    rec["reclaimed_s"] = round(time.monotonic() - t0, 2)
                    break
                except Exception as e:  # noqa: BLE001
                    if "CAPACITY_REACHED" not in str(e):
                        rec.setdefault("probe_errors", []).append(str(e)[:120])
                    time.sleep(0.25)
                finally:
                    probe.close()
            out.append(rec)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()


# --------------------------------------------------------------------------- run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--sessions", type=int, default=64)
    ap.add_argument("--workers", type=int, default=-1, help="server render/score processes (-1: one per core)")
    ap.add_argument("--idle-timeout", type=float, default=60.0, help="server --idle-timeout (s)")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a client 'thinks' between steps")
    ap.add_argument("--victim-every", type=float, default=45.0, help="seconds between victim kills")
    ap.add_argument("--no-restart", action="store_true", help="do not restart the server mid-run")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    if a.sessions < 3 or a.minutes <= 0:
        ap.error("--sessions must be >= 3 and --minutes > 0")
    import psutil

    port = free_port()
    server = Server(port, a.sessions, a.workers, a.idle_timeout)
    load_before = os.getloadavg()
    startup_s = server.start()
    stats = Stats()
    stop = threading.Event()
    trainer_out: dict = {"episodes": 0, "tool_errors": 0, "rewards": [], "lost": None}
    victim_out: list = []
    rss: list[tuple[float, float, int]] = []  # (t, MB, incarnation)
    t_start = time.monotonic()
    duration = a.minutes * 60
    n_steady = a.sessions - 2
    threads = [threading.Thread(target=steady, args=(i, server.url, stats, stop, a.think, 10.0 / n_steady),
                                daemon=True) for i in range(n_steady)]
    threads.append(threading.Thread(target=trainer, args=(server.url, stats, stop, trainer_out, a.think), daemon=True))
    threads.append(threading.Thread(target=victims, args=(server, stats, stop, victim_out, a.victim_every),
                                    daemon=True))
    for t in threads:
        t.start()
    incarnation = 0
    restart: dict = {}
    restart_at = None if a.no_restart else duration / 2
    loads = []
    try:
        from tqdm import tqdm

        with tqdm(total=int(duration), desc="soak", unit="s", file=sys.stderr) as bar:
            while (now := time.monotonic() - t_start) < duration:
                rss.append((round(now, 1), server.rss_mb(), incarnation))
                loads.append(os.getloadavg()[0])
                if restart_at is not None and now >= restart_at and not restart:
                    stats.in_restart.set()
                    t0 = time.monotonic()
                    server.stop()
                    restart["down_at_s"] = round(now, 1)
                    restart["startup_s"] = round(server.start(), 2)
                    restart["downtime_s"] = round(time.monotonic() - t0, 2)
                    incarnation += 1
                    threading.Timer(30, stats.in_restart.clear).start()  # errors in the next 30 s are the restart's
                bar.update(int(now) - bar.n)
                time.sleep(5)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
        rss.append((round(time.monotonic() - t_start, 1), server.rss_mb(), incarnation))
        alive_after = server.proc.poll() is None
        server.stop()

    def growth(inc: int) -> dict:
        pts = [(t, m) for t, m, i in rss if i == inc and m > 0]
        if len(pts) < 2:
            return {}
        warm = [m for t, m in pts if t - pts[0][0] >= 60] or [pts[-1][1]]  # after a minute of warm-up
        return {"first_mb": pts[0][1], "after_1min_mb": warm[0], "max_mb": max(m for _, m in pts),
                "last_mb": pts[-1][1], "growth_after_1min_mb": round(pts[-1][1] - warm[0], 1),
                "span_s": round(pts[-1][0] - pts[0][0], 1)}

    lat = {k: {"n": len(v), "p50_s": pct(v, 50), "p99_s": pct(v, 99), "max_s": round(max(v), 3)}
           for k, v in sorted(stats.lat.items())}
    steps = stats.lat["tool_step"] + stats.lat["sketch_step"] + stats.lat["finish"]
    rewards = [r for r in trainer_out["rewards"] if r is not None]
    reclaimed = [v for v in victim_out if "reclaimed_s" in v]
    result = {
        "bench": "soak", "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "config": {"minutes": a.minutes, "sessions": a.sessions, "steady_clients": n_steady, "workers": a.workers,
                   "idle_timeout_s": a.idle_timeout, "think_s": a.think, "victim_every_s": a.victim_every,
                   "restart": not a.no_restart, "server_ping_s": 20.0},
        "machine": describe(mem_total_gb=round(psutil.virtual_memory().total / 2**30, 1),
                            load_before=[round(x, 2) for x in load_before],
                            load_mean_during=round(statistics.mean(loads), 2) if loads else None,
                            note="shared machine: other developers' jobs ran at the same time"),
        "server_startup_s": round(startup_s, 2),
        "episodes": dict(stats.episodes),
        "episodes_per_s": round(sum(stats.episodes.values()) / duration, 3),
        "calls": len(steps) + len(stats.lat["reset"]),
        "latency": lat,
        "step_latency": {"p50_s": pct(steps, 50), "p99_s": pct(steps, 99)},
        "errors": dict(stats.errors),
        "error_count": sum(v for k, v in stats.errors.items() if "during restart" not in k),
        "error_count_during_restart": sum(v for k, v in stats.errors.items() if "during restart" in k),
        "error_examples": stats.error_examples,
        "rewards_none": stats.rewards_none,
        "rss": {"first_server": growth(0), "after_restart": growth(1) if incarnation else {},
                "series": [[t, m] for t, m, _ in rss]},
        "victims": victim_out,
        "reclaim_s": {k: [v["reclaimed_s"] for v in reclaimed if v["kind"] == k] for k in ("killed", "hung")},
        "restart": restart,
        "trainer": {"episodes": trainer_out["episodes"], "tool_errors": trainer_out["tool_errors"],
                    "tool_error_examples": trainer_out.get("tool_error_examples", [])[:5],
                    "rewards_none": len(trainer_out["rewards"]) - len(rewards),
                    "reward_mean": round(statistics.mean(rewards), 4) if rewards else None,
                    "lost": trainer_out["lost"]},
        "server_alive_at_end": alive_after,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"soak: {a.sessions} sessions, {a.minutes:g} min, {sum(stats.episodes.values())} episodes "
          f"({result['episodes_per_s']}/s), load {result['machine']['load_mean_during']} on {os.cpu_count()} cores")
    print(f"{'call':<16}{'n':>7}{'p50 s':>9}{'p99 s':>9}{'max s':>9}")
    for k, v in lat.items():
        print(f"{k:<16}{v['n']:>7}{v['p50_s']:>9.3f}{v['p99_s']:>9.3f}{v['max_s']:>9.3f}")
    print(f"errors {result['error_count']} (+{result['error_count_during_restart']} during the restart), "
          f"None rewards {stats.rewards_none}; RSS {result['rss']['first_server']}")
    print(f"reclaim killed {result['reclaim_s']['killed']} s, hung {result['reclaim_s']['hung']} s; "
          f"restart {restart}; trainer {result['trainer']}")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)  # a client's event-loop thread left by a dropped connection must not hold the exit
