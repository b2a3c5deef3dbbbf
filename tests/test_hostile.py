"""Hostile sketches (tests/hostile/) through every door: the CLI, the environment server, the TRL tool class.

Each corpus file says what it attacks and what must come back in its header:
``// expect: limit=<time|heap|commands|source|none>[|...] reason=<regex>``. Every
sketch must be answered within its limit with one clear line (a gate 0 in the
environment), never a traceback, a hang or a crashed server; the worker that ran
it is replaced when it had to be killed; other sessions keep painting; and a
loopback listener on the port the network attacks target proves nothing arrives
(``__PORT__`` in a sketch is replaced by that port). One more case is generated:
a source three times the sandbox's limit (refused before it runs; one past the action's
``MAX_SKETCH_CHARS`` never reaches a session: tests/test_env_server.py).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
from serve_process import ServeProcess

HOSTILE = Path(__file__).parent / "hostile"
TIME_S = 5.0  # the sandbox's default limit (SandboxLimits.time_s)
#: What any one sketch may take, limit included: the limit, the kill grace, a fresh worker, a loaded machine.
ANSWER_S = TIME_S + 6.0
_EXPECT = re.compile(r"^// expect: limit=(\S+) reason=(.+)$", re.M)
GOOD = textwrap.dedent("""
    function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
    function draw() {
      translate(-width / 2, -height / 2);
      brush.noStroke();
      brush.fill("#d7263d", 200);
      brush.circle(300, 300, 150);
      brush.fill("#1b998b", 180);
      brush.circle(150, 150, 80);
    }
""")


HUGE = 3 * 256 * 1024  # 3x SandboxLimits.max_source_bytes, under the env's MAX_SKETCH_CHARS


def GENERATED(filler: str) -> list[tuple[str, str, str, str]]:
    """Cases too big to keep as files: (name, source, limit, reason). The last four once made a
    static scan quadratic (the sandbox's, then the gate's): minutes to hours on one sketch. The huge ones are
    3x the sandbox's source limit: under the env action's bound, so a session answers them with a gate 0."""
    return [
        ("huge_source", GOOD + filler * (HUGE // len(filler)), "source", "source limit"),
        ("huge_source_blank_lines", GOOD + "\n" * HUGE, "source", "source limit"),
        ("unterminated_strings", GOOD + "'\\" * 100_000, "none", "syntax error"),
        ("canvas_call_bomb", GOOD + "createCanvas(" * 15_000, "none", "syntax error"),
        # the gate's function-definition scan backtracked over one long name from each of its letters: ~23 min
        ("long_identifier", GOOD + "x" * 250_000, "none", "ReferenceError"),
    ]


@dataclass
class Case:
    name: str
    path: Path
    limits: set[str]  # acceptable SketchResult.limit values ("none" for None)
    reason: re.Pattern


class Listener:
    """A loopback TCP listener: every connection that reaches it is recorded (there must be none)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits: list[str] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            try:
                conn.settimeout(0.5)
                data = conn.recv(200)
            except OSError:
                data = b""
            self.hits.append(f"{addr}: {data[:80]!r}")
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._t.join(2)
        self.sock.close()


@pytest.fixture(scope="module")
def listener():
    lst = Listener()
    yield lst
    lst.close()
    assert lst.hits == [], f"connections reached the loopback listener: {lst.hits}"


@pytest.fixture(scope="module")
def corpus(listener, tmp_path_factory) -> list[Case]:
    """The corpus with __PORT__ filled in, plus the generated cases (GENERATED)."""
    out = tmp_path_factory.mktemp("hostile")
    cases = []
    for src in sorted(HOSTILE.glob("*.js")):
        raw = src.read_bytes()
        m = _EXPECT.search(raw.decode("utf-8", errors="replace"))
        assert m, f"{src.name}: no '// expect: limit=... reason=...' header"
        dst = out / src.name
        dst.write_bytes(raw.replace(b"__PORT__", str(listener.port).encode()))
        cases.append(Case(src.stem, dst, set(m.group(1).split("|")), re.compile(m.group(2).strip())))
    filler = "// " + "wash " * 20 + "\n"
    for name, text, limit, reason in GENERATED(filler):
        (out / f"{name}.js").write_text(text)
        cases.append(Case(name, out / f"{name}.js", {limit}, re.compile(reason)))
    assert (out / "huge_source.js").stat().st_size > HUGE - 1000
    assert len(cases) >= 45
    return cases


def _by_name(corpus: list[Case], names: list[str]) -> list[Case]:
    found = [c for c in corpus if c.name in names]
    assert len(found) == len(names)
    return found


def _cli(*args: str, timeout: float) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _one_clear_line(text: str) -> None:
    assert text and "\n" not in text.strip() and "Traceback" not in text and len(text) < 2000, text


def _non_loopback(pids: list[int]) -> list[str]:
    """Connections of these processes whose remote end is not on this machine's loopback."""
    bad = []
    for pid in pids:
        try:
            conns = psutil.Process(pid).net_connections(kind="inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for c in conns:
            if c.raddr and not ipaddress.ip_address(c.raddr.ip).is_loopback:
                bad.append(f"pid {pid} -> {c.raddr.ip}:{c.raddr.port}")
    return bad


# --------------------------------------------------------------------------- the CLI


def test_check_cli_answers_every_hostile_sketch(corpus, tmp_path):
    """`aquarelle check --json`: one JSON object and one stderr line per sketch, the expected reason and limit;
    an honest sketch right after each killed worker is checked normally (the worker was replaced)."""
    good = tmp_path / "honest.js"
    good.write_text(GOOD)
    files = []
    for c in corpus:
        files.append(c.path)
        if c.limits & {"time", "heap"}:
            files.append(good)
    r = _cli("check", "--json", *map(str, files), timeout=len(files) * ANSWER_S)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [Path(d["sketch"]).stem for d in lines] == [f.stem for f in files]
    honest = [d for d in lines if d["sketch"] == str(good)]
    assert len(honest) >= 8 and all(d["ok"] and d["summary"]["shapes"] == 2 for d in honest), honest
    lines = [d for d in lines if d["sketch"] != str(good)]
    err_lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(err_lines) == len(corpus), r.stderr[-3000:]  # one line per rejected sketch, nothing else
    for case, d in zip(corpus, lines):
        said = "; ".join([d["reason"]] + d["violations"])
        assert d["ok"] is False, (case.name, d)
        assert case.reason.search(said), (case.name, said)
        assert (d["limit"] or "none") in case.limits, (case.name, d["limit"], said)
        _one_clear_line(d["reason"])
        assert d["ms"] < ANSWER_S * 1000, (case.name, d["ms"])


RENDER_SET = ["infinite_loop", "memory_bomb_arrays", "deep_recursion", "network_fetch", "constructor_escape",
              "proto_object_pollution", "text_cheat", "truncated", "nan_numbers", "missing_setup", "timers",
              "huge_source", "unterminated_strings"]


def test_render_cli_refuses_hostile_sketches_within_its_timeout(corpus, tmp_path):
    """`aquarelle render --timeout 2`: nothing rendered, no PNG written, each answered within the timeout."""
    cases = _by_name(corpus, RENDER_SET)
    t0 = time.monotonic()
    r = _cli("render", "--json", "--timeout", "2", "--out-dir", str(tmp_path), *[str(c.path) for c in cases],
             timeout=120)
    wall = time.monotonic() - t0
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == len(cases)
    for case, d in zip(cases, lines):
        assert d["ok"] is False and d["png"] is None, (case.name, d)
        _one_clear_line(d["error"])
        # the render sandbox's clock is 0.8 x --timeout, so a slow sketch fails on time there
        limits = case.limits | ({"none"} if case.limits <= {"time"} else set())
        assert case.reason.search(d["error"]) or ("time" in limits and "time limit" in d["error"]), (case.name, d)
        assert d["ms"] is None or d["ms"] < 2000 + 1500, (case.name, d["ms"])
    assert list(tmp_path.glob("*.png")) == []
    assert wall < 60, wall  # one time-limited sketch may not hold the rest up


SCORE_SET = ["infinite_loop", "command_flood", "text_cheat", "bare_p5", "network_hidden_name", "eval",
             "proto_array_pollution", "function_proto_tampering", "infinite_numbers", "truncated", "no_webgl",
             "huge_source", "huge_source_blank_lines", "canvas_call_bomb"]


def test_score_cli_gives_gate_zero_with_reasons(corpus):
    """`aquarelle score --json`: every hostile sketch scores exactly 0 (the gate), never None, with its reason."""
    cases = _by_name(corpus, SCORE_SET)
    r = _cli("score", "--json", *[str(c.path) for c in cases], timeout=len(cases) * ANSWER_S + 60)
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == len(cases)
    for case, d in zip(cases, lines):
        assert d["reward"] == 0.0 and d["breakdown"]["gate"] == 0.0, (case.name, d)
        assert "error" not in d, (case.name, d)  # a model's fault is not an infrastructure failure
        assert any(case.reason.search(g) for g in d["gate_reasons"]), (case.name, d["gate_reasons"])


# --------------------------------------------------------------------------- the environment server


class Server(ServeProcess):
    """``aquarelle serve`` on a random loopback port, with a view of its process tree."""

    def tree(self) -> list[int]:
        try:
            p = psutil.Process(self.proc.pid)
            return [p.pid] + [c.pid for c in p.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def sandbox_workers(self) -> set[int]:
        """The sandbox workers: children of the server's pool workers."""
        try:
            return {g.pid for c in psutil.Process(self.proc.pid).children() for g in c.children()}
        except psutil.NoSuchProcess:
            return set()

@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.stop()


def _client(url: str):
    from aquarelle.env.client import WatercolourEnv

    return WatercolourEnv(base_url=url, message_timeout_s=120).sync()


def test_server_survives_the_corpus_while_other_sessions_paint(server, corpus, listener):
    """Two hostile sessions send the whole corpus; two honest sessions paint all along and must never notice."""
    before = set(server.tree())
    seen_workers: set[int] = set()
    stop = threading.Event()
    honest: dict[str, list] = {"tools": [], "sketch": [], "errors": []}
    outside: list[str] = []

    def tools_painter() -> None:
        try:
            with _client(server.url) as env:
                while not stop.is_set():
                    env.reset(mode="tools", seed=3, max_steps=5)
                    r = env.step({"calls": [{"method": "fill", "args": ["#224488", 220]},
                                            {"method": "circle", "args": [300, 300, 120]}]})
                    assert r.observation.errors == [] and r.observation.coverage > 0.02, r.observation.text
                    r = env.step({"finish": True})
                    assert r.done and r.reward is not None and r.reward > 0, r.observation.text
                    honest["tools"].append(r.reward)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            honest["errors"].append(f"tools: {type(e).__name__}: {e}")

    def sketch_painter() -> None:
        try:
            with _client(server.url) as env:
                while not stop.is_set():
                    env.reset(mode="sketch", seed=1)
                    r = env.step({"sketch": GOOD})
                    assert r.done and r.observation.errors == [] and r.reward is not None and r.reward > 0, \
                        r.observation.text
                    honest["sketch"].append(r.reward)
        except BaseException as e:  # noqa: BLE001
            honest["errors"].append(f"sketch: {type(e).__name__}: {e}")

    answers: dict[str, tuple] = {}

    def hostile(cases: list[Case]) -> None:
        with _client(server.url) as env:
            for case in cases:
                env.reset(mode="sketch", seed=0, action_space="full")
                source = case.path.read_text(encoding="utf-8", errors="replace")
                t0 = time.monotonic()
                try:
                    r = env.step({"sketch": source})
                    answers[case.name] = (time.monotonic() - t0, r.done, r.reward, r.observation.errors,
                                          r.observation.text)
                except Exception as e:  # noqa: BLE001
                    answers[case.name] = (time.monotonic() - t0, None, None, [f"{type(e).__name__}: {e}"], "")

    def watch() -> None:  # sample the server's connections while it works
        while not stop.wait(0.3):
            seen_workers.update(server.sandbox_workers())
            outside.extend(_non_loopback(server.tree()))

    helpers = [threading.Thread(target=f) for f in (tools_painter, sketch_painter, watch)]
    for t in helpers:
        t.start()
    halves = [corpus[0::2], corpus[1::2]]
    attackers = [threading.Thread(target=hostile, args=(h,)) for h in halves]
    for t in attackers:
        t.start()
    for t in attackers:
        t.join(timeout=len(corpus) * ANSWER_S)
    stop.set()
    for t in helpers:
        t.join(timeout=120)

    assert honest["errors"] == []
    assert len(honest["tools"]) >= 3 and len(honest["sketch"]) >= 3, honest
    assert outside == []
    assert sorted(answers) == sorted(c.name for c in corpus)
    for case in corpus:
        # a step may wait for a pool worker held by the other attacker's time-limited sketch
        wall, done, reward, errors, text = answers[case.name]
        assert done is True and reward == 0.0, (case.name, reward, errors, text)
        assert errors and not any(e.startswith("infrastructure") for e in errors), (case.name, errors)
        assert any(case.reason.search(e) for e in errors), (case.name, errors)
        for e in errors:
            _one_clear_line(e)
        assert wall < 2 * ANSWER_S, (case.name, wall)

    # still healthy, still serving, and the killed sandbox workers were replaced (not leaked)
    assert server.proc.poll() is None
    assert httpx.get(server.url + "/health", timeout=5).json()["status"] == "healthy"
    with _client(server.url) as env:
        env.reset(mode="sketch")
        r = env.step({"sketch": GOOD})
        assert r.reward is not None and r.reward > 0
    alive = server.sandbox_workers()
    assert alive and len(seen_workers - alive) >= 5, (seen_workers, alive)  # killed after time/heap limits...
    assert len(alive) <= 2  # ...and replaced, one per pool worker, none leaked
    assert len(server.tree()) <= len(before) + 2


def test_tool_class_against_the_server_with_hostile_code(server, corpus):
    """PaintingToolEnv-style class on env URLs: a hostile submission is a 0 with its reason, the class still works."""
    from aquarelle.train import make_tool_env

    Env = make_tool_env(mode="sketch", env_urls=[server.url])
    for case in _by_name(corpus, ["network_websocket", "memory_bomb_objects"]):
        env = Env()
        env.reset(prompt="a harbour at dusk")
        text = env.submit_sketch(case.path.read_text())
        _one_clear_line(text)
        assert env.reward == 0.0 and case.reason.search(text), (case.name, text)
    env = Env()
    env.reset(prompt="two circles")
    env.submit_sketch(GOOD)
    assert env.reward is not None and env.reward > 0


# --------------------------------------------------------------------------- the TRL tool class in-process


TOOL_SET = ["infinite_loop", "memory_bomb_arrays", "command_flood_caught", "json_tampering", "brush_tampering",
            "dynamic_import", "require", "files", "string_doubling", "missing_setup", "huge_source", "huge_source_blank_lines"]


def test_tool_class_sketch_and_revise_modes(corpus):
    """Sketch mode: gate 0 with the reason. Revise mode: a ToolError line (TRL's {'error': ...}) until revisions end."""
    from aquarelle.train import ToolError, make_tool_env

    Sketch = make_tool_env(mode="sketch")
    Revise = make_tool_env(mode="revise", revisions=1)
    for case in _by_name(corpus, TOOL_SET):
        source = case.path.read_text(encoding="utf-8", errors="replace")
        env = Sketch()
        env.reset(prompt="a lighthouse")
        t0 = time.monotonic()
        text = env.submit_sketch(source)
        assert time.monotonic() - t0 < ANSWER_S, case.name
        _one_clear_line(text)
        assert env.reward == 0.0 and env.done, (case.name, text)
        assert any(case.reason.search(e) for e in env.errors), (case.name, env.errors)

        env = Revise()
        env.reset(prompt="a lighthouse")
        with pytest.raises(ToolError) as ei:
            env.submit_sketch(source)
        _one_clear_line(str(ei.value))
        assert case.reason.search(str(ei.value)), (case.name, str(ei.value))
        env.submit_sketch(source)  # the last revision: scored, done, gate 0
        assert env.done and env.reward == 0.0


BAD_TOOL_ARGS = [
    ("circle", ("x", 300, 100)),
    ("circle", (float("nan"), 300, 100)),
    ("circle", (300, float("inf"), 100)),
    ("circle", (300, 300, -1e300)),
    ("circle", (None, None, None)),
    ("fill", (12345, 200)),
    ("fill", ("#zzzzzz", 200)),
    ("fill", ("#d7263d", "opaque")),
    ("fill", ({"r": 1}, 200)),
    ("fillBleed", ([0.3] * 10,)),
    ("fillTexture", ("a", "b")),
    ("beginShape", ("curvy",)),
    ("vertex", (1e308 * 10, 0)),
    ("endShape", ("maybe",)),
    ("shape", ("not a list",)),
    ("shape", ([[1]],)),
    ("shape", ([[1, 2, 3, 4], [1, 2], [3, 4]],)),
    ("shape", ([["a", "b"], [1, 2], [3, 4]],)),
    ("shape", ([[i % 600, (i * 7) % 600] for i in range(20_000)],)),
    ("scaleBrushes", (-1,)),
]


def test_tool_class_tools_mode_bad_arguments():
    """Every bad argument is one ToolError line; the episode goes on and still paints and scores afterwards."""
    from aquarelle.train import PaintingToolEnv, ToolError

    env = PaintingToolEnv()
    env.reset(prompt="a red sun")
    for name, args in BAD_TOOL_ARGS:
        with pytest.raises(ToolError) as ei:
            getattr(env, name)(*args)
        _one_clear_line(str(ei.value))
    assert env.tool_errors == len(BAD_TOOL_ARGS)  # each counted, shape()'s own refusals too
    assert env.n_calls == 0  # nothing bad was applied
    env.fill("#d7263d", 200)
    env.circle(300, 300, 120)
    env.finish()
    assert env.reward is not None and env.reward > 0
    with pytest.raises(ToolError, match="finished"):
        env.circle(1, 1, 1)
