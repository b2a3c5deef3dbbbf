"""Run a p5.brush sketch in an embedded V8 (mini-racer) and return its command program.

The sketch runs in a fresh V8 context against ``js/prelude.js``: p5 shims (math
honouring angleMode, seeded random/noise, push/pop/translate/rotate/scale applied
to brush coordinates, colours) and a recording ``brush`` whose 47 methods store
plain copies of their arguments in a closure. Built-ins are frozen before user
code runs, so a sketch cannot hide its calls. The host then validates every call
(``commands.validate``), checks the action space and replays the state model, so a
sketch is rejected for the same reasons p5.brush would throw.

Notes on the harder p5.brush functions:
- ``instance``/``load``: accepted as no-ops and not recorded (we always paint the canvas).
- ``box``/``listFields``/``wRand``: answered inside the sketch, not recorded.
- ``addField(name, fn, opts)``: ``fn(t, field)`` is called on p5.brush's 200x200 grid and
  every 4th cell kept (50x50, same extent); ``refreshField(t)`` of a custom field re-samples
  at ``t`` and records a fresh ``addField`` first.
- ``add(name, {type: "custom", tip})``: the tip function draws on a small raster (32x32
  over p5.brush's 100x100 tip space; fill/stroke/rect/circle/ellipse/triangle/quad/line/
  point/shapes/transforms); dark paint becomes alpha. Other drawing calls are refused.
  Image brushes are refused (they load a resource).
- ``async function setup`` is run to completion; code after an ``await`` runs outside
  V8's timer, so a hang there is caught by killing the worker at the deadline.
- p5's ``randomSeed``/``noiseSeed``: p5.brush's p5 add-on reseeds p5.brush from them, so
  besides the sketch's own random they count for the painting. A whole-number
  ``randomSeed`` before any brush call becomes the program's ``seed`` (an exported sketch
  opens with one, so the round trip holds); any later or text seed is recorded as the
  ``seed``/``noiseSeed`` command it amounts to. Both belong to every action space.

Frame: coordinates, radii, lengths and hatch spacing go through the current transform (a
rotated rect becomes beginShape/vertex/endShape, and so does a circle under a scale that differs by axis or a
shear: the ellipse p5.brush draws); brush weights do not; angles are stored in
degrees. ``createVector`` makes p5 2.x's ``p5.Vector`` (its methods and statics, with p5's
quirks: a 2-D vector drops writes to z). Determinism: random(), Math.random, noise and the
clock follow ``seed``. random, randomGaussian, shuffle and noise are p5's own (its linear
congruential generator and Perlin table), so a sketch that seeds them draws the same numbers
run raw in p5.js; without a ``randomSeed``/``noiseSeed`` they start as if seeded with
``seed``. The p5 helpers give p5.js 2.3.4's values to the last bit (``test_browser`` checks
them in Chromium). Frozen
built-ins mean a sketch cannot patch prototypes (assignments to e.g. ``Array.prototype.push``
are ignored, or throw in strict code).

Every sketch runs in a worker process (spawn) that is killed and replaced after a
timeout or out-of-memory: mini-racer can hang at exit after an OOM abort.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import numbers
import re
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .program import Program
from .text import clip

JS_DIR = Path(__file__).parent / "js"
#: Seconds the parent waits beyond ``time_s`` before killing a silent worker.
KILL_GRACE_S = 0.7
#: Seconds a fresh worker may take to import and initialise V8.
START_TIMEOUT_S = 60.0
#: Seconds allowed for host-side validation after the JavaScript has finished.
VALIDATE_TIMEOUT_S = 60.0
#: Changes whenever the sandbox makes another program of the same sketch, so what is cached from sketches
#: (the reference pool's renders, warm starts learnt from its programs) is made again. 2: p5's own random and
#: noise generators instead of mulberry32; 3: lerpColor as p5 2.x mixes (0-1 units, the amount unclamped) (both
#: 2026-12-02). Kept at 3 through the later sketch fixes (clamped arguments, colorMode, p5's helpers and
#: constants, int()): they change programs only of sketches that were refused before or use what no repository
#: sketch uses; the programs of all 73 (pool, examples, bench, tests) were compared and are unchanged.
PROGRAM_VERSION = 3


class SandboxError(RuntimeError):
    """Infrastructure failure: the worker process could not start or answer."""


@dataclass
class SandboxLimits:
    time_s: float = 5.0
    heap_mb: int = 256
    max_commands: int = 200_000
    max_source_bytes: int = 256 * 1024

    def __post_init__(self) -> None:
        """The caller's limits, checked here: ``time_s=-1`` came back as the sketch's "ran longer than -1 s" (a gate
        0 for the caller's mistake), NaN as "cannot convert float NaN to integer"."""
        for name in ("time_s", "heap_mb", "max_commands", "max_source_bytes"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a finite number > 0, got {v!r}")


@dataclass
class SketchResult:
    program: Program | None  # None when the sketch was rejected
    violations: list[str] = field(default_factory=list)
    error: str | None = None
    ms: float = 0.0
    limit: str | None = None  # "time" | "heap" | "commands" | "source"

    @property
    def ok(self) -> bool:
        return self.error is None and not self.violations

    @property
    def reason(self) -> str:
        if self.error:
            return self.error
        return "; ".join(self.violations)


# --------------------------------------------------------------------------- static scan

_FORBIDDEN_NAMES = ("fetch", "XMLHttpRequest", "WebSocket", "require", "process", "setTimeout", "setInterval",
                    "setImmediate", "queueMicrotask", "eval", "importScripts", "Worker", "WebAssembly",
                    "loadImage", "loadJSON", "loadStrings", "httpGet", "httpPost", "createGraphics", "document",
                    "window", "localStorage", "globalThis", "__aq_host")
_NATIVE_NAMES = {"eval", "setTimeout", "setInterval", "queueMicrotask", "WebAssembly", "globalThis", "__aq_host"}
_DECL_RE = re.compile(r"(?:function\s*\*?|let|const|var|class)\s+([A-Za-z_$][\w$]*)")
# An unterminated comment or string runs to the end (of the line): each opener then matches once
# instead of rescanning the rest of the source, which made the scan quadratic (minutes on 256 KB).
_STRIP = re.compile(
    r"//[^\n]*|/\*.*?(?:\*/|\Z)|`(?:\\.|[^`\\])*\\?(?:`|\Z)|'(?:\\.|[^'\\\n])*\\?(?:'|(?=\n)|\Z)"
    r"|\"(?:\\.|[^\"\\\n])*\\?(?:\"|(?=\n)|\Z)",
    re.S,
)
_NAME_RE = re.compile(r"(?<![\w$.])(" + "|".join(_FORBIDDEN_NAMES) + r")(?![\w$])")
_FUNCTION_RE = re.compile(r"(?<![\w$.])Function\s*\(|new\s+Function(?![\w$])|\.constructor\s*\(")
_IMPORT_RE = re.compile(r"(?<![\w$.])import\s*\(|^[^\S\n]*import\s", re.M)  # [^\S\n]: \s* across lines is quadratic


#: p5's seeding calls as the sandbox records them, and the p5.brush call each amounts to (p5.brush's p5 add-on
#: reseeds p5.brush from them); like ``background`` they belong to every action space.
_P5_SEEDS = {"p5.randomSeed": "seed", "p5.noiseSeed": "noiseSeed"}
#: the prelude's ``refreshField(t)`` of a custom field: its grid at t, an ``addField`` where it takes effect
_REFRESH_SAMPLE = "p5.refreshSample"


def _sample_applies(state: Any, cmd: Any) -> bool:
    """Whether a refreshed custom field's grid changes anything: p5.brush refreshes what its list holds under the
    name, which is the built-in field where the custom one was added before the built-ins were made (the state
    model has dropped it then), and a grid the field already has is no change."""
    name, grid = cmd.args
    return name in state.fields and state.fields[name] != grid


def static_violations(source: str) -> list[str]:
    """Forbidden globals named in the code (comments and string literals ignored)."""
    code = _STRIP.sub(lambda m: " " if m.group(0).startswith("/") else '""', source)
    found: list[str] = []
    declared = set(_DECL_RE.findall(code))
    for m in _NAME_RE.finditer(code):
        if m.group(1) in declared and m.group(1) not in _NATIVE_NAMES:
            continue  # the sketch's own helper called e.g. `process`
        msg = f"forbidden global {m.group(1)}"
        if msg not in found:
            found.append(msg)
    if _FUNCTION_RE.search(code):
        found.append("forbidden global Function (no code from strings)")
    if _IMPORT_RE.search(code):
        found.append("forbidden import() (sketches cannot load modules)")
    return found


# --------------------------------------------------------------------------- in the worker


def _check_state_class() -> type:
    from .state import PaintState

    class CheckState(PaintState):
        """The state model without per-op snapshots: the sandbox only needs its errors."""

        def _op(self, cmd: Any, **geometry: Any) -> None:
            return None

    return CheckState

_PRELUDE: str | None = None


def _css_names() -> str:
    """Every CSS colour name as JSON ``{name: [r, g, b]}``, from Pillow's table (the one ``colors.py`` parses
    ``brush.fill('darkorange')`` with), so a sketch's ``color('darkorange')`` works as it does in p5."""
    from PIL import ImageColor

    return json.dumps({k: list(ImageColor.getrgb(k)[:3]) for k in sorted(ImageColor.colormap)}, separators=(",", ":"))


def _prelude() -> str:
    global _PRELUDE
    if _PRELUDE is None:
        _PRELUDE = (JS_DIR / "prelude.js").read_text(encoding="utf-8").replace("/*CSS_NAMES*/{}", _css_names())
    return _PRELUDE


#: setup() then, when it did not await, draw(): "sync" once both ran, "async" for the host to wait on setup
_SETUP_AND_DRAW = '__aq_host.startSetup() === "sync" ? (__aq_host.runDraw(), "sync") : "async"'


_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _non_finite(obj: dict) -> Any:
    """json object_hook: the prelude's ``{"__aq_number__": "NaN"}`` (JSON has no NaN or Infinity) back to the number,
    so validation names it instead of seeing null."""
    if len(obj) == 1 and obj.get("__aq_number__") in _NON_FINITE:
        return _NON_FINITE[obj["__aq_number__"]]
    return obj


def _boot(cfg_json: str) -> str:
    """Our set-up as one script: no timers, the prelude, the sketch's config (``cfg_json`` a JS string literal)."""
    return ("delete globalThis.setTimeout; delete globalThis.clearTimeout; delete globalThis.__timer_manager;\n"
            f"{_prelude()}\n__aq_host.init({cfg_json});\n")


def _one_line(text: Any, limit: int = 300) -> str:
    return clip(" ".join(str(text).split()), limit)


def _js_message(exc: Exception, n_lines: int = 10**9) -> str:
    """mini-racer's exception text is 'file:line: Error: msg' plus the stack; keep the gist."""
    raw = str(exc).strip()
    lines = [ln for ln in raw.splitlines() if ln.strip()]
    head = lines[0] if lines else raw
    # "<anonymous>:3: ReferenceError: foo is not defined" -> keep "line 3: ReferenceError: ..."
    m = re.match(r"^(<anonymous>|undefined|sketch\.js|aquarelle-prelude\.js)?:(\d+):\s*(.*)$", head)
    if m:  # a line in the sketch is worth naming; a line in our prelude is not
        head = m.group(3) if m.group(1) == "aquarelle-prelude.js" else f"line {min(int(m.group(2)), n_lines)}: {m.group(3)}"
    return _one_line(head)


def execute(source: str, action_space: Any = "full", limits: SandboxLimits | None = None, seed: int = 0,
            on_js_done: Any = None) -> SketchResult:
    """Run one sketch in this process (the worker calls this; tests of the shims may too)."""
    from py_mini_racer import MiniRacer
    from py_mini_racer._exc import JSOOMException, JSParseException, JSTimeoutException, MiniRacerBaseException

    from .action_space import get_space
    from .commands import MAX_FIELD_CELLS, CommandError, validate
    from .p5_clamps import p5_clamped
    _CheckState = _check_state_class()
    limits = limits or SandboxLimits()
    t0 = time.perf_counter()
    space = get_space(action_space)
    statics = static_violations(source)
    heap = int(limits.heap_mb) * 1024 * 1024
    mr = MiniRacer()
    error: str | None = None
    limit: str | None = None
    data: dict | None = None

    def left() -> float:
        return max(0.05, limits.time_s - (time.perf_counter() - t0))

    try:
        # one round trip into V8 for our own set-up (each costs ~0.3 ms), one for a sketch whose setup() is
        # synchronous: setup() and draw() in one call
        cfg = {"seed": seed, "maxCommands": int(limits.max_commands), "maxFieldCells": MAX_FIELD_CELLS,
               "static": statics}
        mr.eval(_boot(json.dumps(json.dumps(cfg))))
        try:
            mr.eval(source + "\n//# sourceURL=sketch.js\n", timeout_sec=left(), max_memory=heap)
            mode = mr.eval(_SETUP_AND_DRAW, timeout_sec=left(), max_memory=heap)
            if mode == "async":
                while True:
                    st = mr.eval("__aq_host.setupState()", timeout_sec=left(), max_memory=heap)
                    if st == "done":
                        break
                    if time.perf_counter() - t0 > limits.time_s:
                        raise JSTimeoutException()
                    time.sleep(0.001)
                mr.eval("__aq_host.runDraw()", timeout_sec=left(), max_memory=heap)
        except JSTimeoutException:
            error, limit = f"time limit: the sketch ran longer than {limits.time_s:g} s", "time"
        except JSOOMException:
            error, limit = f"heap limit: the sketch used more than {limits.heap_mb} MB of memory", "heap"
        except JSParseException as e:
            error = "syntax error: " + _js_message(e, source.count("\n") + 1)
        except MiniRacerBaseException as e:
            msg = _js_message(e, source.count("\n") + 1)
            if "LimitError" in msg:
                error, limit = f"command limit: more than {limits.max_commands} brush calls", "commands"
            elif "SandboxViolation" in msg:
                error = None  # the violation itself is recorded
            elif mr.was_hard_memory_limit_reached():
                error, limit = f"heap limit: the sketch used more than {limits.heap_mb} MB of memory", "heap"
            else:
                error = "uncaught exception: " + msg
        if limit == "time":  # a caught command-limit error that then looped is still the command limit
            if mr.eval("__aq_host.limitHit()", timeout_sec=1) == "commands":
                error, limit = f"command limit: more than {limits.max_commands} brush calls", "commands"
        elif limit != "heap":
            try:
                data = json.loads(mr.eval("__aq_host.result()", timeout_sec=10), object_hook=_non_finite)
            except MiniRacerBaseException as e:
                # the calls' arguments are more than V8 can write as one string (one 1 MB string passed to 600
                # calls is 1 MB of heap but 600 MB to write): the sketch's doing, never the sandbox's failure
                error, limit = (f"heap limit: the brush calls' arguments are too big to read back "
                                f"({_js_message(e)})", "heap")
    finally:
        if limit != "heap":
            mr.close()
    js_ms = (time.perf_counter() - t0) * 1000
    if on_js_done is not None:
        on_js_done(limit)
    if data is None:
        return SketchResult(None, list(statics), error, js_ms, limit)
    if data.get("limit") == "commands" and limit != "commands":  # the root cause, even if caught and then timed out
        error, limit = f"command limit: more than {limits.max_commands} brush calls", "commands"
    violations = list(data["violations"])
    commands = []
    samples: set[int] = set()  # indices in commands of the refreshed custom fields' grids (``_sample_applies``)
    seen_space: set[str] = set()
    for method in data.get("queried", []):  # answered inside the sketch, yet still calls of the space
        if method not in space:
            seen_space.add(method)
            violations.append(f"brush.{method}() is not in the {space.name} action space")
    if error is None:
        for method, args in data["calls"]:
            if method in _P5_SEEDS:  # p5's randomSeed/noiseSeed reseed p5.brush too: the brush call they amount to
                method = _P5_SEEDS[method]
            elif method == _REFRESH_SAMPLE:  # (refreshField is a call of the space, and its field came by addField)
                method = "addField"
                samples.add(len(commands))
            elif method not in space and method not in seen_space:
                seen_space.add(method)
                violations.append(f"brush.{method}() is not in the {space.name} action space")
                continue
            try:
                commands.append(validate(method, p5_clamped(method, args)))
            except CommandError as e:
                error = f"invalid call: {_one_line(e)}"
                break
            if method == "add" and (gap := _add_gap(args[1])):
                error = f"invalid call: add: brush {commands[-1].args[0]!r} {gap}"
                break
    program = None
    if error is None and not violations:
        canvas = data["canvas"]
        try:
            lead = data.get("seed")  # the sketch's own leading randomSeed, which p5.brush takes as its seed
            st = _CheckState()
            kept = []
            for i, c in enumerate(commands):
                if i in samples and not _sample_applies(st, c):
                    continue
                st.apply(c)
                kept.append(c)
            program = Program(width=canvas["w"], height=canvas["h"], seed=seed if lead is None else int(lead),
                              commands=kept)
        except CommandError as e:
            error, program = f"invalid call: {_one_line(e)}", None
        except ValueError as e:
            error, program = f"invalid program: {_one_line(e)}", None
    return SketchResult(program, violations, error, (time.perf_counter() - t0) * 1000, limit)


def _add_gap(params: dict) -> str | None:
    """What a sketch's ``brush.add`` leaves out that p5.brush 2.2.2 needs, measured in Chromium: without a pressure
    every stroke of the brush throws ("Cannot read properties of undefined (reading 'type')"); without scatter or
    opacity (and, for a default-type brush, sharpness; for a spray, grain: its dots per step) it paints nothing.
    Our renderer fills those in, so such a sketch painted here and not in p5.brush. (A program's ``add`` is
    exported with every parameter filled in, so tools-mode calls may leave them out.)"""
    def given(*keys: str) -> bool:
        return any(params.get(k) is not None for k in keys)

    def present(*keys: str) -> bool:  # null too: p5.brush's arithmetic reads a null sharpness as 0 and paints
        return any(k in params for k in keys)

    missing = [] if params.get("pressure") else ["pressure"]
    missing += [k for k, keys in (("scatter", ("scatter", "vibration")), ("opacity", ("opacity",))) if not given(*keys)]
    if params.get("type") not in ("marker", "spray", "custom") and not present("sharpness", "definition"):
        missing.append("sharpness")
    if params.get("type") == "spray" and not given("grain", "quality"):
        missing.append("grain")
    if not missing:
        return None
    why = ("p5.brush throws at the first stroke of a brush without a pressure" if "pressure" in missing else
           "p5.brush paints nothing with a brush that lacks one")
    return (f"needs {', '.join(missing)} (e.g. pressure: [1, 1], scatter: 1, opacity: 150, sharpness: 0.5, grain: 1):"
            f" {why}")


def _pack(res: SketchResult) -> tuple:
    """A SketchResult as plain data: pickling 200k pydantic commands costs seconds, lists do not."""
    prog = res.program
    body = None if prog is None else (prog.width, prog.height, prog.seed, [(c.method, c.args) for c in prog.commands])
    return body, res.violations, res.error, res.ms, res.limit


def _unpack(packed: tuple) -> SketchResult:
    """Rebuild without re-validating: the worker already validated every command."""
    from .commands import Command

    body, violations, error, ms, limit = packed
    prog = None
    if body is not None:
        w, h, seed, cmds = body
        prog = Program.model_construct(width=w, height=h, seed=seed,
                                       commands=[Command.model_construct(method=m, args=a) for m, a in cmds])
    return SketchResult(prog, violations, error, ms, limit)


def _die_with_parent() -> None:
    """End this worker at once when the process that started it is gone. A parent killed from outside (``aquarelle
    render``'s worker at its ``--timeout``) left us orphaned, running the sketch to its own limit and then, exiting
    with V8's promise callbacks pending, printing py_mini_racer's "Event loop is closed" tracebacks on the terminal
    of a command that had already answered. A watching thread, not ``PR_SET_PDEATHSIG``: that fires when the
    *thread* that started us ends, and a server starts sandboxes from pool threads. (ctypes releases the GIL while
    V8 runs, so the thread sees its parent go mid-sketch.)"""
    import os

    parent = mp.parent_process()
    if parent is None:
        return
    ppid = parent.pid

    def watch() -> None:
        while os.getppid() == ppid:
            time.sleep(0.2)
        os._exit(0)  # no interpreter shutdown: nothing left to print

    threading.Thread(target=watch, name="sandbox-parent-watch", daemon=True).start()


def _worker_main(conn: Any) -> None:
    """Worker loop: ("ready",) once warm; then per request ("js", limit) progress and ("result", SketchResult)."""
    _die_with_parent()
    from py_mini_racer import MiniRacer

    from . import action_space, commands, state  # noqa: F401 - import before the first deadline starts

    MiniRacer().close()  # V8 initialised before the first sketch's clock starts
    conn.send(("ready",))
    while True:
        try:
            req = conn.recv()
        except EOFError:
            return
        if req is None:
            return
        source, space, limits, seed = req
        try:
            try:
                res = execute(source, space, limits, seed, on_js_done=lambda lim: conn.send(("js", lim)))
            except ConnectionError:
                raise
            except Exception as e:  # an infrastructure bug, reported to the parent as such
                conn.send(("crash", f"{type(e).__name__}: {_one_line(e)}"))
                continue
            conn.send(("result", _pack(res)))
        except ConnectionError:  # the parent is gone (killed, or a pool worker stopped mid-sketch): nobody to answer
            return
        if res.limit == "heap":
            return  # an isolate that hit OOM is not reused; the parent replaces us


# --------------------------------------------------------------------------- the parent side

#: Resident memory a worker may reach while a sketch runs: its V8 baseline plus twice the heap limit.
#: ArrayBuffers are allocated outside the heap ``max_memory`` bounds; without this a sketch filling
#: typed arrays grew a worker by ~1.5 GB before its time limit.
RSS_BASE_MB = 256


def _rss_cap(limits: SandboxLimits) -> int:
    return (RSS_BASE_MB + 2 * int(limits.heap_mb)) * 1024 * 1024


def _rss(pid: int) -> int:
    """Resident bytes of a process (Linux /proc; 0 where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


try:
    import os as _os

    _PAGE = _os.sysconf("SC_PAGE_SIZE")
except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux
    _PAGE = 4096


#: How a worker ends when V8 gives up on memory it cannot get (past its own heap ceiling, or the system's): a
#: fatal "out of memory" that traps (SIGTRAP, or SIGILL on some builds) or aborts. The sketch's doing, the heap
#: limit; any other death (SIGKILL, SIGTERM, a clean exit) came from outside: an infrastructure failure.
V8_ABORT_CODES = frozenset((-signal.SIGTRAP, -signal.SIGILL, -signal.SIGABRT))


def _exit_text(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class SketchRunner:
    """A killable worker process that runs sketches one at a time (thread-safe)."""

    def __init__(self) -> None:
        self._ctx = mp.get_context("spawn")
        self._proc: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        try:
            parent, child = self._ctx.Pipe()
            proc = self._ctx.Process(target=_worker_main, args=(child,), daemon=True, name="aquarelle-sandbox")
            proc.start()
            child.close()
        except Exception as e:  # pragma: no cover - depends on the OS
            raise SandboxError(f"sandbox worker could not start: {e}") from None
        self._proc, self._conn = proc, parent
        try:  # wait until it is warm, so a sketch's deadline never includes the worker's start-up
            if not parent.poll(START_TIMEOUT_S) or parent.recv() != ("ready",):
                raise SandboxError(f"sandbox worker did not start within {START_TIMEOUT_S:g} s")
        except (OSError, EOFError):
            self._kill()
            raise SandboxError("sandbox worker died while starting (a script that runs sketches needs "
                               "`if __name__ == '__main__':`, as multiprocessing spawn requires)") from None
        except SandboxError:
            self._kill()
            raise

    def _exit_code(self) -> int | None:
        """The dead worker's exit code (``-N`` for signal N), waiting briefly for it to be reapable."""
        if self._proc is None:
            return None
        self._proc.join(timeout=2)
        return self._proc.exitcode

    def _kill(self) -> None:
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.join(timeout=5)
            except Exception:
                pass
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
        self._proc = self._conn = None

    def _recv(self, deadline: float, rss_cap: int | None = None) -> Any:
        """Next message before ``deadline`` (monotonic), else None; EOFError when the worker died;
        ("rss",) when the worker's resident memory passed ``rss_cap`` bytes."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                if self._conn.poll(min(remaining, 0.05 if rss_cap else 0.5)):
                    return self._conn.recv()
            except OSError:
                raise EOFError from None
            if not self._proc.is_alive() and not self._conn.poll(0):
                raise EOFError
            if rss_cap and _rss(self._proc.pid) > rss_cap:
                return ("rss",)

    def run(self, source: str, *, action_space: Any = "full", limits: SandboxLimits | None = None,
            seed: int = 0) -> SketchResult:
        limits = limits or SandboxLimits()
        if not isinstance(limits, SandboxLimits):  # a dict was "'dict' object has no attribute 'max_source_bytes'"
            raise TypeError(f"run: limits must be a SandboxLimits, got {type(limits).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            # the caller's mistake, neither the sketch's (a gate 0) nor the sandbox's (a numpy int killed the
            # worker: "not JSON serializable"; NaN was V8's parse error, 1.5 the sketch's error)
            raise ValueError(f"run: seed must be an integer, got {seed!r}")
        seed = int(seed)
        if not isinstance(source, str):
            return SketchResult(None, [], f"sketch must be text, got {type(source).__name__}", 0.0)
        size = len(source.encode("utf-8"))
        if size > limits.max_source_bytes:
            return SketchResult(None, [], f"source limit: the sketch is {size} bytes (at most "
                                          f"{limits.max_source_bytes})", 0.0, "source")
        from .action_space import get_space
        from .commands import CommandError
        try:
            space = get_space(action_space)
        except CommandError as e:
            return SketchResult(None, [], str(e), 0.0)
        with self._lock:
            return self._run_locked(source, space, limits, seed)

    def _run_locked(self, source: str, space: Any, limits: SandboxLimits, seed: int) -> SketchResult:
        for attempt in range(2):
            if self._proc is None or not self._proc.is_alive():
                self._kill()
                self._start()
            t0 = time.monotonic()
            try:
                self._conn.send((source, space, limits, seed))
            except (OSError, EOFError, BrokenPipeError):
                self._kill()
                continue
            try:
                msg = self._recv(t0 + limits.time_s + KILL_GRACE_S, rss_cap=_rss_cap(limits))
                if msg == ("rss",):  # typed arrays live outside the V8 heap that max_memory bounds
                    self._kill()
                    return SketchResult(None, [], f"heap limit: the sketch used more than {limits.heap_mb} MB of "
                                                  f"memory (its worker passed {_rss_cap(limits) >> 20} MB and was "
                                                  "replaced)",
                                        (time.monotonic() - t0) * 1000, "heap")
                if msg is None:
                    self._kill()
                    ms = (time.monotonic() - t0) * 1000
                    return SketchResult(None, [], f"time limit: the sketch ran longer than {limits.time_s:g} s",
                                        ms, "time")
                if msg[0] == "js":
                    msg = self._recv(time.monotonic() + VALIDATE_TIMEOUT_S)
                    if msg is None:
                        self._kill()
                        raise SandboxError("sandbox worker did not finish validating the sketch")
            except EOFError:
                code = self._exit_code()
                self._kill()
                ms = (time.monotonic() - t0) * 1000
                if attempt == 0 and (time.monotonic() - t0) < 0.05:
                    continue  # died before it could start: try a fresh worker once
                if code in V8_ABORT_CODES:
                    return SketchResult(None, [], f"heap limit: the sketch used more than {limits.heap_mb} MB of "
                                                  "memory (the worker was replaced)", ms, "heap")
                raise SandboxError(f"sandbox worker died while running the sketch ({_exit_text(code)}), not by "
                                   "the sketch's heap limit: killed from outside or crashed")
            kind, payload = msg
            if kind == "crash":
                self._kill()
                raise SandboxError(f"sandbox worker failed: {payload}")
            payload = _unpack(payload)
            if payload.limit in ("heap", "time"):
                self._kill()  # never reuse a worker after an abort
            return payload
        raise SandboxError("sandbox worker could not start")

    def warm(self) -> None:
        """Start the worker now (so the first sketch does not pay for it)."""
        with self._lock:
            if self._proc is None or not self._proc.is_alive():
                self._start()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._proc is not None and self._proc.is_alive():
                try:
                    self._conn.send(None)
                    self._proc.join(timeout=2)
                except Exception:
                    pass
            self._kill()

    def __enter__(self) -> "SketchRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            self._kill()
        except Exception:
            pass


_DEFAULT: SketchRunner | None = None
_DEFAULT_LOCK = threading.Lock()


def run_sketch(source: str, *, action_space: Any = "full", limits: SandboxLimits | None = None,
               seed: int = 0) -> SketchResult:
    """Run a sketch in the module's shared worker; never raises for a bad sketch."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = SketchRunner()
    return _DEFAULT.run(source, action_space=action_space, limits=limits, seed=seed)
