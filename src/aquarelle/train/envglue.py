"""Glue between TRL and the painting environment: build the tool class, time it, read an episode's outcome.

Why a wrapper: TRL derives tools from the class's public methods and would add a
``get_reward`` as a second reward column; we want exactly one reward function (ours,
which also records every rollout) and the seconds spent inside the environment
(sandbox, render, scoring) to report ``env_time_share``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .tool_env import public_tools


class EnvTimer:
    """Wall seconds during which any environment work ran, since the last ``take()`` (thread-safe).

    TRL may run several rollouts' tool calls at once; summing their durations would count
    overlapping seconds twice (a share above 1). We count the union of busy intervals instead.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._s = 0.0
        self._active = 0
        self._since = 0.0
        self.calls = 0

    @contextlib.contextmanager
    def busy(self, call: bool = False):
        with self._lock:
            if self._active == 0:
                self._since = time.perf_counter()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                self.calls += int(call)
                if self._active == 0:
                    self._s += time.perf_counter() - self._since

    def take(self) -> tuple[float, int]:
        with self._lock:
            s, c = self._s, self.calls
            if self._active:  # work still running: count it up to now, the rest goes to the next take
                now = time.perf_counter()
                s += now - self._since
                self._since = now
            self._s, self.calls = 0.0, 0
            return s, c


def _timed(fn: Any, timer: EnvTimer, is_tool: bool) -> Any:
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        with timer.busy(call=is_tool):
            return fn(self, *args, **kwargs)

    return wrapper


def timed_class(base: type, timer: EnvTimer) -> type:
    """A subclass of the tool class whose tools and reset add to ``timer`` and with no ``get_reward`` column."""
    ns: dict[str, Any] = {"get_reward": None, "__doc__": base.__doc__, "__module__": base.__module__}
    for name in public_tools(base):
        ns[name] = _timed(getattr(base, name), timer, True)
    ns["reset"] = _timed(base.reset, timer, False)
    return type(base.__name__, (base,), ns)


def env_class(mode: str, action_space: str, cfg: Any = None, **extra: Any) -> type:
    """The tool environment class for a mode (tools/revise) from aquarelle.train.tool_env.make_tool_env."""
    from aquarelle.train.tool_env import make_tool_env

    kwargs: dict[str, Any] = {"mode": mode, "action_space": action_space}
    if cfg is not None:
        kwargs.update(env_urls=list(cfg.env.urls) or None, reconnect_s=cfg.env.reconnect_s, max_steps=cfg.env.max_steps,
                      revisions=cfg.env.revisions,
                      obs_chars=cfg.env.revise_observation_chars if mode == "revise" else cfg.env.observation_chars,
                      reward_config=cfg.reward.reward_config() or None, image_size=cfg.env.image_size,
                      weights=cfg.reward.weights)
    kwargs.update(extra)
    params = inspect.signature(make_tool_env).parameters
    if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    cls = make_tool_env(**kwargs)
    hide = [n for n in (cfg.env.hide_tools if cfg is not None else []) if n in public_tools(cls)]
    if hide and mode == "tools" and "shape" in public_tools(cls):
        # not a tool for TRL (it lists functions only); the environment still accepts the calls `shape` expands to
        cls = type(cls.__name__, (cls,), {n: None for n in hide} | {"__doc__": cls.__doc__, "__module__": cls.__module__})
    return cls


@dataclass
class Outcome:
    """What one finished episode produced (the rollout's reward and the material to keep)."""

    reward: float | None
    breakdown: dict[str, float | None] = field(default_factory=dict)
    program: dict | None = None
    source: str | None = None
    png_b64: str | None = None
    coverage: float | None = None
    n_calls: int = 0
    errors: list[str] = field(default_factory=list)
    error: str | None = None
    feedback: str = ""  # the final observation's text (why the gate failed, the critique)
    judge_position_bias: int | None = None  # the judge's order-flipped verdicts, of judge_pairs (eval's bias rate)
    judge_pairs: int | None = None


def _get(obj: Any, *names: str) -> Any:
    for n in names:
        if obj is None:
            return None
        v = obj.get(n) if isinstance(obj, dict) else getattr(obj, n, None)
        if v is not None:
            return v
    return None


def finish_episode(env: Any) -> Outcome:
    """Score the episode if the model never finished it, then read its outcome from the tool environment."""
    from .tool_env import EnvUnreachable

    done = _get(env, "done")
    if not done and hasattr(env, "finish"):
        try:
            env.finish()
        except EnvUnreachable as e:  # its server stayed away: reading its state would wait the whole window again
            return Outcome(reward=None, error="environment failed: " + (str(e).splitlines() or ["unreachable"])[0])
        except Exception:  # noqa: BLE001 - already finished, or the env reports a reason in its state
            pass
    # The tool env keeps the last observation and the episode state (docs/CONTRACTS.md, issue 5).
    state = _get(env, "state", "episode_state")
    if callable(state):
        state = state()
    obs = _get(env, "last_observation", "observation", "obs")
    reward = _get(env, "reward")
    if reward is None:
        reward = _get(obs, "reward")
    if reward is None:
        reward = _get(state, "reward")
    if reward is None and callable(getattr(type(env).__mro__[1], "get_reward", None)):
        reward = type(env).__mro__[1].get_reward(env)
    errors = list(_get(env, "errors") or _get(obs, "errors") or [])
    err = _get(env, "error")
    return Outcome(
        reward=None if reward is None else float(reward),
        breakdown=dict(_get(env, "breakdown") or _get(obs, "breakdown") or _get(state, "breakdown") or {}),
        program=_get(env, "program") or _get(state, "program"),
        source=_get(env, "source") or _get(state, "source"),
        png_b64=_get(env, "image_png_b64", "png_b64") or _get(obs, "image_png_b64"),
        coverage=_get(env, "coverage") if _get(env, "coverage") is not None else _get(obs, "coverage"),
        n_calls=int(_get(env, "n_calls") or _get(state, "n_calls") or 0),
        errors=[str(e) for e in errors],
        error=err if isinstance(err, str) else None,
        feedback=str(_get(obs, "text") or "")[:400],
        judge_position_bias=_get(state, "judge_position_bias"), judge_pairs=_get(state, "judge_pairs"),
    )


class SketchScorer:
    """Sketch mode: run a completion's sketch through the environment (in-process or a server) and score it."""

    def __init__(self, cfg: Any, timer: EnvTimer):
        self.cfg = cfg
        self.timer = timer
        self._urls = list(cfg.env.urls)
        self._i = 0
        self._local = None

    def _env(self) -> Any:
        if self._urls:
            from aquarelle.env.client import WatercolourEnv

            url = self._urls[self._i % len(self._urls)]
            self._i += 1
            return WatercolourEnv(base_url=url).sync()
        if self._local is None:
            from aquarelle.env.environment import WatercolourEnvironment
            from aquarelle.env.work import Runner

            self._local = WatercolourEnvironment(Runner(0, reward_config=self.cfg.reward.reward_config() or None))
        return self._local

    def score(self, sketch: str, *, prompt: str, seed: int, preset: str | None, weights: dict | None) -> Outcome:
        from .tool_env import _action_problem

        # a sketch the environment's action refuses (over its size) is the model's fault: the gate's 0 and why,
        # as the environment scores a sketch with no skeleton, never None as if a server had failed
        bad = _action_problem({"sketch": sketch})
        try:
            with self.timer.busy():
                out = self._score("" if bad else sketch, prompt=prompt, seed=seed, preset=preset, weights=weights)
        except Exception as e:  # noqa: BLE001 - infrastructure: None with the reason, never 0
            return Outcome(reward=None, error=f"environment failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        if bad:
            out.errors, out.source, out.feedback = [bad], None, f"Rejected: {bad}"
        return out

    def score_completion(self, completion_text: str, *, prompt: str, seed: int, preset: str | None,
                         weights: dict | None, opens_thinking: bool = False) -> tuple[str, Outcome]:
        """Score the sketch a sketch-mode completion answers with; returns (that code, its outcome). A
        completion that ran out of tokens while reasoning is told so before the gate's reason. ``opens_thinking``:
        the prompt opened the <think> the completion starts inside (``completion.prompt_opens_thinking``)."""
        from .completion import UNFINISHED_THINKING, as_written, extract_sketch, unfinished_thinking

        completion_text = as_written(completion_text, opens_thinking)
        code = extract_sketch(completion_text)
        out = self.score(code, prompt=prompt, seed=seed, preset=preset, weights=weights)
        if out.reward is not None and unfinished_thinking(completion_text, code):
            out.errors.insert(0, UNFINISHED_THINKING)
        return code, out

    def _score(self, sketch: str, *, prompt: str, seed: int, preset: str | None, weights: dict | None) -> Outcome:
        env = self._env()
        # the run's image size travels with the reset: the same painting is scored in-process and on a server
        kw = {"prompt": prompt, "mode": "sketch", "action_space": self.cfg.env.action_space, "return_image": True,
              "image_size": self.cfg.env.image_size}
        from aquarelle.rewards.config import reset_scoring

        kw.update(reset_scoring(preset, weights))
        if self._urls:
            with env:
                env.reset(seed=seed, **kw)
                obs = env.step({"sketch": sketch}).observation
                state = env.state()
        else:
            env.reset(seed=seed, **kw)
            obs = env.step({"sketch": sketch})
            state = env.state
        return Outcome(reward=obs.reward, breakdown=dict(obs.breakdown), program=state.program, source=sketch,
                       png_b64=obs.image_png_b64, coverage=obs.coverage, n_calls=state.n_calls,
                       errors=list(obs.errors), feedback=obs.text[:400],
                       judge_position_bias=state.judge_position_bias, judge_pairs=state.judge_pairs)
