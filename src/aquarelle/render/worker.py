"""A killable render worker for ``aquarelle render``: nothing hangs past ``--timeout``.

The CLI sends one job at a time over a pipe; the worker loads a sketch (through
the sandbox) or a program JSON, renders it and writes the PNG. A job that runs
past its timeout is answered by killing the worker and starting a fresh one, so
the next sketch is unaffected. Start-up and warm-up happen before the first job
and are not counted in a job's ``ms``.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from pathlib import Path


def load_program(path: Path, seed: int | None, timeout_s: float, text: str | None = None):
    """(program, None, render seed) or (None, reason, None): a ``.json`` program, rendered under ``seed`` (else its
    header's), or a sketch run in the sandbox under ``seed``, rendered under the seed its program records (a sketch
    opening with its own ``randomSeed(n)`` is painted with n, as the environment paints it). ``text``: the input as
    already read (standard input, which the parent read), else the file is read here."""
    from ..brush.commands import CommandError
    from ..brush.files import InputError, is_program, painting_of, read_input
    from ..brush.program import Program

    if text is None:
        try:
            text = read_input(path)
        except InputError as e:
            return None, str(e), None
    try:  # a program, or a rollout's {"program": ...} / {"code": ...} as export takes them
        painting, program_json = painting_of(text, is_program(path, text))
        if program_json:
            return Program.from_json(painting), None, seed
    except (CommandError, ValueError) as e:
        return None, str(e).splitlines()[0], None
    try:
        from ..brush.sandbox import SandboxLimits, run_sketch
    except ImportError:
        return None, "the sketch sandbox (aquarelle.brush.sandbox) is not available; pass a program .json", None
    limits = SandboxLimits(time_s=max(0.1, min(5.0, timeout_s * 0.8)))
    res = run_sketch(painting, action_space="full", limits=limits, seed=seed or 0)
    if not res.ok or res.program is None:
        return None, res.reason or "sketch rejected", None
    return res.program, None, None


def _job(job: dict, renderer) -> dict:
    import numpy as np
    from PIL import Image

    from . import background_of
    from .coverage import coverage
    from .errors import RenderError
    from .resample import fit

    t0 = time.perf_counter()
    program, reason, seed = load_program(Path(job["sketch"]), job["seed"], job["timeout"], job.get("text"))
    if program is None:
        return {"ok": False, "error": reason, "ms": round((time.perf_counter() - t0) * 1000, 2)}
    try:  # a square canvas resampled by the renderer as always; any other keeps its shape (``resample.fit``)
        square = program.width == program.height
        img = renderer(program, job["size"] if square else None, seed)
        if not square:
            img = fit(img, job["size"])
    except RenderError as e:
        said = str(e).splitlines()[0]
        return {"ok": False, "error": said if said.startswith("render: ") else f"render: {said}",
                "ms": round((time.perf_counter() - t0) * 1000, 2)}
    ms = (time.perf_counter() - t0) * 1000
    out = Path(job["png"])
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.ascontiguousarray(img)).save(out)
    return {"ok": True, "error": None, "ms": round(ms, 2), "png": str(out),
            "coverage": round(coverage(img, background_of(program)), 6)}


_WARM_SKETCH = """function setup() { createCanvas(32, 32, WEBGL); angleMode(DEGREES); noLoop(); }
function draw() { translate(-width / 2, -height / 2); brush.noStroke(); brush.fill("#808080", 100); brush.circle(16, 16, 8); }
"""


def _warm_sandbox() -> None:
    """Start the sandbox's own worker now, so the first sketch's ``ms`` does not include it."""
    try:
        from ..brush.sandbox import run_sketch
    except ImportError:
        return
    run_sketch(_WARM_SKETCH)


def _make_renderer(backend: str, conn=None):
    _warm_sandbox()
    if backend == "browser":
        from .browser import BrowserRenderer

        br = BrowserRenderer(pool_size=1)
        br.check()  # launched now (its files found, or one start-up line), so no sketch's ms holds the launch
        br.render_sketch(_WARM_SKETCH)  # nor the first page's set-up (the native backend's warm_up, for the browser)

        def render(program, size, seed):
            return br.render(program, size=size, seed=seed)

        return render
    from .native import render as native_render
    from .warm import warm_up

    if conn is not None:  # alive, and now loading the kernels: compiling them takes minutes once (``Worker.start``)
        conn.send({"phase": "kernels"})
    warm_up()  # every kernel loaded now, so no sketch's ms holds another's first-call cost

    def render(program, size, seed):
        return native_render(program, size=size, seed=seed)

    return render


def _main(conn, backend: str) -> None:
    try:
        renderer = _make_renderer(backend, conn)
        conn.send({"ready": True})
    except Exception as e:  # report start failure to the parent, which prints one line
        conn.send({"ready": False, "error": f"{e.__class__.__name__}: {str(e).splitlines()[0] if str(e) else ''}"})
        return
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        try:
            conn.send(_job(job, renderer))
        except Exception as e:  # an unexpected failure is this job's error line, never a traceback
            conn.send({"ok": False, "error": f"internal error: {e.__class__.__name__}: {e}"})


#: How long a render worker may take to load the native kernels (numba compiles them when its cache is cold), and
#: after how long the render command says it is compiling.
KERNEL_TIMEOUT_S = 900.0
KERNEL_NOTE_S = 10.0


class Worker:
    """A render worker process; ``run`` returns the job's result or a timeout error."""

    def __init__(self, backend: str, start_timeout: float = 120.0, kernel_timeout: float = KERNEL_TIMEOUT_S):
        self.backend = backend
        self.start_timeout = start_timeout
        self.kernel_timeout = kernel_timeout
        self.proc = None
        self.conn = None
        #: why the worker could not start, once it could not: ``run`` answers every later job with it instead of
        #: launching again (it starts again after a job that timed out or crashed it, so a start that fails, no p5
        #: in AQUARELLE_NODE_MODULES or no Chromium, was tried again for every sketch: N launches, N waits)
        self.start_error: str | None = None

    def start(self) -> str | None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_main, args=(child, self.backend), daemon=False)  # it runs its own sandbox worker
        self.proc.start()
        child.close()
        return self._await_ready()

    def _await_ready(self) -> str | None:
        """None once the worker says it is ready; else why it did not start (it is killed)."""
        if not self.conn.poll(self.start_timeout):
            self.kill()
            return f"render worker did not start within {self.start_timeout:g} s"
        try:
            msg = self.conn.recv()
            if msg.get("phase") == "kernels":  # the native kernels load, or compile: a first run after an install or
                # an update compiles them (124 s of CPU on a 2-core machine, past the start limit), so they get longer
                if not self.conn.poll(KERNEL_NOTE_S):
                    print("render worker: compiling the native renderer's kernels (once after an install or an "
                          "update; minutes on a slow machine; `python -m aquarelle.render.warm` does it ahead)",
                          file=sys.stderr, flush=True)
                    if not self.conn.poll(self.kernel_timeout - KERNEL_NOTE_S):
                        self.kill()
                        return f"render worker did not load its kernels within {self.kernel_timeout:g} s"
                msg = self.conn.recv()
        except EOFError:
            self.kill()
            return "render worker exited during start-up"
        if not msg.get("ready"):
            self.kill()
            return f"render worker could not start: {msg.get('error')}"
        return None

    def run(self, job: dict, timeout: float) -> dict:
        if self.proc is None:
            self.start_error = self.start_error or self.start()
            if self.start_error:
                return {"ok": False, "error": self.start_error, "ms": None}
        self.conn.send(job)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                pass
            self.kill()
            return {"ok": False, "error": "render worker crashed", "ms": None}
        self.kill()
        return {"ok": False, "error": f"timed out after {timeout:g} s", "ms": round(timeout * 1000, 2)}

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join(5)
        self.proc = None
        self.conn = None

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(2)
            except (OSError, BrokenPipeError):
                pass
        self.kill()
