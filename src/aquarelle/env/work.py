"""The heavy part of a step (sandbox, render, score) as one picklable job.

The server runs ``evaluate`` in a process pool so a slow sketch or render never
holds the event loop or the GIL of other sessions; the in-process environment
(TRL's embedded default) calls it directly. Model faults (a rejected sketch, a
``RenderError``) come back as data and gate the reward to 0; anything else is an
infrastructure failure with a one-line reason and no reward (never a silent 0).
"""

from __future__ import annotations

import base64
import os
import threading
import time
import weakref
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------- request / result


@dataclass
class EvalRequest:
    """One evaluation: a program (tools) or a sketch source (sketch/revise)."""

    mode: str
    program: dict | None = None
    source: str | None = None
    action_space: Any = "hf10"
    seed: int = 0
    score: bool = False
    want_png: bool = False
    size: int | None = None
    weights: dict | None = None
    n_calls: int | None = None
    prompt: str | None = None
    episode: str | None = None  # tools mode: paint incrementally on this episode's kept canvas
    since: int | None = None    # tools mode: the commands before this step's, to say whether the step changed a pixel
    forget: bool = False        # the episode is over: drop its kept canvas after this job
    fault: str | None = None    # the sketch's fault, found before it ran (not valid Unicode): gate 0, no sandbox


@dataclass
class EvalResult:
    program: dict | None = None
    violations: list[str] = field(default_factory=list)
    sketch_error: str | None = None       # the sketch's own fault (syntax, exception, limit)
    render_error: str | None = None       # the program's fault (RenderError)
    infra_error: str | None = None        # ours: worker died, renderer missing, scorer down
    coverage: float | None = None
    changed: bool | None = None           # tools mode: whether the step's calls changed any pixel (None: unknown)
    png: bytes | None = None
    reward: dict | None = None            # RewardResult.model_dump()
    ms: dict[str, float] = field(default_factory=dict)

    @property
    def fault(self) -> str | None:
        """The model's fault in one line, if any."""
        if self.sketch_error:
            return self.sketch_error
        if self.violations:
            return "; ".join(self.violations)
        return self.render_error


# --------------------------------------------------------------------------- worker globals

#: A pool worker's reward config (set by ``init_worker``; a pool worker serves one ``Runner``). The inline runner
#: passes its own config with each job instead: several in one process each score with theirs.
_REWARD_CONFIG: Any = None
_WORKER = object()  # evaluate's default: the worker's config
#: Reward models by config (and what it reads from the environment): one per config in a process, shared by the
#: runners that have it.
_MODELS: dict[tuple, Any] = {}
_MODELS_LOCK = threading.Lock()


def init_worker(reward_config: Any = None, watch_parent: bool = False) -> None:
    """Process-pool initializer: one thread per worker, reward config for the lazy model.

    A pool worker also exits when its server dies (killed, or stopped before it
    could shut the pool down), instead of lingering as an orphan.
    """
    global _REWARD_CONFIG
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _REWARD_CONFIG = reward_config
    if watch_parent:
        parent = os.getppid()

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(0)

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def reward_model(config: Any = None) -> Any:
    """This process's ``RewardModel`` for ``config`` (a ``RewardConfig``, its keyword dict, or None: the embedded
    defaults), made once per distinct config and kept (its judge client, verdict cache, pool and images are reused,
    as a pool worker reuses them across sessions). The key holds what the config takes from the environment
    (URLs, judge model and key, the pool directory) as it is now: changing one makes a new model."""
    from .scoring import make_reward_model, reward_config

    cfg = reward_config(config)
    key = (cfg.model_dump_json(), cfg.resolved_judge_url(), cfg.resolved_judge_model(), cfg.resolved_api_key(),
           cfg.resolved_preference_url(), os.environ.get("AQUARELLE_POOL"))
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is None:
            model = _MODELS[key] = make_reward_model(cfg)
        return model


def png_bytes(img: Any) -> bytes:
    from ..render.png import encode_png

    return encode_png(img)


def b64(png: bytes | None) -> str | None:
    return None if png is None else base64.b64encode(png).decode("ascii")


def _one_line(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}".rstrip(": ")


# --------------------------------------------------------------------------- the job


def evaluate(req: EvalRequest, reward_config: Any = _WORKER) -> EvalResult:
    """Sandbox (if a source), render, measure coverage, and score (if asked) with ``reward_config`` (by default
    the pool worker's, from ``init_worker``)."""
    out = EvalResult()
    try:
        _evaluate(req, out, _REWARD_CONFIG if reward_config is _WORKER else reward_config)
    except Exception as e:  # noqa: BLE001 - anything unexpected is ours, reported, never a 0
        out.infra_error = _one_line(e)
    return out


def _evaluate(req: EvalRequest, out: EvalResult, reward_config: Any) -> None:
    from aquarelle.brush import Program

    program = None
    if req.fault is not None:
        out.sketch_error = req.fault
    elif req.source is not None:
        from aquarelle.brush.sandbox import run_sketch

        t = time.perf_counter()
        res = run_sketch(req.source, action_space=req.action_space, seed=req.seed)
        out.ms["sandbox"] = (time.perf_counter() - t) * 1000
        out.violations = list(res.violations)
        out.sketch_error = res.error
        if res.program is not None:
            program = res.program
            out.program = program.to_json()
    elif req.program is not None:
        program = Program.from_json(req.program)
        out.program = req.program

    img = None
    if program is not None and out.fault is None:
        from aquarelle.render import RenderError, background_of, render_program

        t = time.perf_counter()
        try:
            img, out.changed = _render(req, program, render_program)
        except RenderError as e:
            out.render_error = str(e).splitlines()[0] if str(e) else "render failed"
        out.ms["render"] = (time.perf_counter() - t) * 1000
        if img is not None:
            out.coverage = fast_coverage(img, background_of(program))
            if req.want_png:
                t = time.perf_counter()
                out.png = png_bytes(img)
                out.ms["png"] = (time.perf_counter() - t) * 1000

    if req.score:
        from .scoring import resolve_weights

        t = time.perf_counter()
        model = reward_model(reward_config)
        weights = resolve_weights(weights=req.weights, config=model.config) if req.weights else None
        result = model.score(
            image=img, program=program, mode=req.mode, source=req.source, n_calls=req.n_calls,
            violations=out.violations, error=out.sketch_error or out.render_error, weights=weights,
            group_seed=req.seed, prompt=req.prompt, action_space=req.action_space, coverage=out.coverage,
        )
        out.reward = result.model_dump()
        out.ms["score"] = (time.perf_counter() - t) * 1000


def fast_coverage(img: Any, background: tuple[int, int, int]) -> float:
    """``aquarelle.render.coverage.coverage`` exactly (|pixel - bg| > tolerance in any channel), on uint8 compares.

    The reference converts the whole image to int16 (~15-20 ms at 600x600); a tools step
    measures coverage every time, so this does the same test without the copy.
    """
    import numpy as np

    from aquarelle.render.coverage import COVERAGE_TOLERANCE, coverage

    a = np.asarray(img)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] < 3 or a.size == 0:
        return float(coverage(a, background=background))
    painted = np.zeros(a.shape[:2], bool)
    for c in range(3):
        ch, b = a[..., c], int(background[c])
        if b + COVERAGE_TOLERANCE < 255:
            painted |= ch > b + COVERAGE_TOLERANCE
        if b - COVERAGE_TOLERANCE > 0:
            painted |= ch < b - COVERAGE_TOLERANCE
    return float(np.count_nonzero(painted)) / float(painted.size)


def _render(req: EvalRequest, program: Any, render_program: Any) -> tuple[Any, bool | None]:
    """Incremental for a tools episode (same pixels, only new calls painted), else a full render. Both paint
    the program's own canvas with the program's own seed (the episode's, unless a sketch opens with its own
    ``randomSeed``: p5.brush, the exported sketch and ``aquarelle render`` paint with that one, and the run
    directory's images are rendered so) and resample it to ``req.size``."""
    seed = program.seed if program.seed is not None else (req.seed or 0)
    if req.episode and req.source is None:
        from aquarelle.render import RenderError
        from aquarelle.render.resample import resample

        from . import incremental

        try:
            img, changed = incremental.render_incremental(req.episode, program, seed, req.since)
            return resample(img, req.size), changed
        except RenderError:
            raise
        except Exception:  # noqa: BLE001 - the renderer's internals moved: a full render is always right
            return render_program(program, size=req.size, seed=seed), None
        finally:
            if req.forget:
                incremental.forget(req.episode)
    return render_program(program, size=req.size, seed=seed), None


# --------------------------------------------------------------------------- runners


class Runner:
    """Runs ``evaluate`` inline (workers=0) or in ``workers`` single-process pools.

    A tools episode is pinned to one worker so its kept canvas is there (see
    ``incremental``); other jobs go to the least busy worker. A pool whose worker
    died is replaced: a job that found it dead before it was handed over (it died
    idle: killed, the OOM killer) runs on the fresh one; the job it died in reports
    an infrastructure error.
    A job past ``timeout_s`` has its worker stopped (it is still in the job, and the
    jobs queued behind it would wait on it); those queued jobs never ran, so they run
    again on the fresh worker. A fresh worker's first job also gets ``start_s`` for
    its start-up (imports, kernels: up to minutes when they compile).
    """

    def __init__(self, workers: int = 0, reward_config: Any = None, timeout_s: float = 300.0,
                 start_s: float = 180.0):
        self.workers = max(int(workers), 0)
        self.reward_config = reward_config
        self.timeout_s = timeout_s
        self.start_s = start_s
        self._pools: list[ProcessPoolExecutor | None] = [None] * self.workers
        self._ready: weakref.WeakSet = weakref.WeakSet()  # pools that have finished a job (started up)
        self._stopped: weakref.WeakSet = weakref.WeakSet()  # pools stopped because a job ran past the timeout
        self._busy = [0] * self.workers
        self._lock = threading.Lock()  # sessions call from many threads

    def _slot(self, req: EvalRequest) -> int:
        if req.episode:
            return hash(req.episode) % self.workers
        with self._lock:
            return min(range(self.workers), key=self._busy.__getitem__)

    def _get_pool(self, i: int) -> ProcessPoolExecutor:
        with self._lock:
            if self._pools[i] is None:
                import multiprocessing as mp

                self._pools[i] = ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"),
                                                     initializer=init_worker, initargs=(self.reward_config, True))
            return self._pools[i]

    def warm(self) -> None:
        """Start the workers now (spawn + imports + kernels take seconds) instead of on the first step."""
        if self.workers > 0:
            pools = [self._get_pool(i) for i in range(self.workers)]
            futs = [p.submit(_warm) for p in pools]
            for i, f in enumerate(futs):
                f.result(timeout=self.timeout_s + self.start_s)
                self._started(i, pools[i])
        else:
            _warm(self.reward_config)

    def _started(self, i: int, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pools[i] is pool:
                self._ready.add(pool)

    def evaluate(self, req: EvalRequest, *, _again: bool = True) -> EvalResult:
        if self.workers <= 0:
            return evaluate(req, self.reward_config)
        i = self._slot(req)
        pool = self._get_pool(i)
        if not _workers_alive(pool):  # it died idle: this job has not run, so it runs on a fresh pool
            self._reset_pool(i, pool)
            pool = self._get_pool(i)
        with self._lock:
            self._busy[i] += 1
        try:
            try:
                fut: Future = pool.submit(evaluate, req)
            except RuntimeError:  # another thread shut this pool down after we took it, or it found its worker
                if _again:        # dead (BrokenProcessPool): either way the job never ran
                    self._reset_pool(i, pool)
                    return self.evaluate(req, _again=False)
                raise
            out = fut.result(timeout=self.timeout_s + (0.0 if pool in self._ready else self.start_s))
            self._started(i, pool)
            return out
        except (BrokenProcessPool, CancelledError):
            if _again and pool in self._stopped:
                return self.evaluate(req, _again=False)  # it waited behind a stopped job and never ran
            self._reset_pool(i, pool)
            return EvalResult(infra_error="evaluation worker died (pool restarted); try again")
        except TimeoutError:
            self._reset_pool(i, pool, stopped=True)  # the worker is still in the job: the jobs behind it move on
            return EvalResult(infra_error=f"evaluation took longer than {self.timeout_s:g} s (its worker was "
                                          "restarted)")
        finally:
            with self._lock:
                self._busy[i] -= 1

    def worker_pids(self) -> list[int]:
        return [pid for p in self._pools if p is not None for pid in (getattr(p, "_processes", None) or {})]

    def _reset_pool(self, i: int, broken: ProcessPoolExecutor | None = None, stopped: bool = False) -> None:
        """Drop pool ``i`` (only if it is still ``broken``: another thread may have replaced it already)."""
        with self._lock:
            pool = self._pools[i]
            if broken is not None and pool is not broken:
                return
            self._pools[i] = None
            if pool is not None and stopped:
                self._stopped.add(pool)
        if pool is not None:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:  # a worker stuck in a long job would otherwise outlive us
                if p.is_alive():
                    p.terminate()

    def close(self) -> None:
        for i in range(self.workers):
            self._reset_pool(i)


def _workers_alive(pool: ProcessPoolExecutor) -> bool:
    """Whether the pool's worker processes are all still running (a pool not yet started has none).

    Asks each process's sentinel, readable once its last thread has exited, not ``is_alive()``: that polls with
    ``waitpid``, and for a child someone else reaped (psutil's ``wait()``, a library's ``waitpid``) it gets ECHILD
    and answers True forever."""
    from multiprocessing.connection import wait

    sentinels = []
    for p in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            sentinels.append(p.sentinel)
        except ValueError:  # the process object was closed: it is gone
            return False
    return not sentinels or not wait(sentinels, timeout=0)


def _warm(reward_config: Any = _WORKER) -> int:
    """Load the renderer's compiled kernels and the reward model in a worker (or, inline, for ``reward_config``)
    before the first real step."""
    from ..render.warm import warm_up

    warm_up()  # every kernel, not only the fill's: a first hatch or mass step would otherwise load its own
    evaluate(EvalRequest(mode="tools", score=True, program={
        "commands": [{"method": "fill", "args": ["#d7263d", 200]}, {"method": "circle", "args": [300, 300, 100]}]}),
        reward_config)
    return os.getpid()
