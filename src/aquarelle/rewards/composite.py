"""The composite reward: gate x (w_gate + w_length*length + w_judge*judge + w_preference*preference).

The line between a 0 and a None: anything the model's code caused (an exception,
a limit, a violation, degenerate geometry, a render refused for its content) is
the gate's 0, so crashing never escapes a bad score; only infrastructure failures
(a scorer down, a timeout of our own service, a broken reference, the renderer
failing with anything but ``RenderError``) give None with the reason in ``error``. A term whose weight is 0 is not computed (None in the
breakdown); after a failed gate the judge and preference are not computed either.
"""

from __future__ import annotations

import numbers
import threading
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from .config import RewardConfig, RewardError, Weights, resolve_weights
from .gate import check_gate
from .imageio import resize
from .judge import JudgeBackendError, judge_against
from .length import counted_calls, length_score

Mode = Literal["sketch", "tools", "revise"]


class RewardResult(BaseModel):
    reward: float | None
    breakdown: dict[str, float | None]
    weights: dict[str, float]
    gate_reasons: list[str]
    error: str | None = None
    critique: str = ""
    judge_position_bias: int = 0
    coverage: float | None = None
    references: list[str] = []


def _one_line(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0]}" if msg else type(e).__name__


def _check_inputs(image: Any, n_calls: Any, group_seed: Any, coverage: Any) -> None:
    """The caller's arguments, one ``RewardError`` line each: a float image in [0, 1] was read as nearly black and
    scored (gate passed, 0.05), a string image failed inside ``coverage``, and a negative call count or a text
    seed went through. (NaN ``coverage`` stays: it asks the gate to measure.)"""
    if image is not None and not (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
                                  and image.shape[2] == 3 and image.shape[0] > 0 and image.shape[1] > 0):
        got = (f"{image.dtype} array of shape {image.shape}" if isinstance(image, np.ndarray)
               else type(image).__name__)
        raise RewardError(f"image must be an H x W x 3 uint8 RGB array (0-255), got {got}")
    if n_calls is not None and (isinstance(n_calls, bool) or not isinstance(n_calls, numbers.Integral) or n_calls < 0):
        raise RewardError(f"n_calls must be a whole number >= 0, got {n_calls!r}")
    if isinstance(group_seed, bool) or not isinstance(group_seed, numbers.Integral):
        raise RewardError(f"group_seed must be an integer, got {group_seed!r}")
    if coverage is not None and (isinstance(coverage, bool) or not isinstance(coverage, numbers.Real)):
        raise RewardError(f"coverage must be a number in [0, 1] (or NaN to measure it), got {coverage!r}")


class RewardModel:
    """Scores paintings with the configured backends; cheap to call, safe from many threads."""

    def __init__(self, config: RewardConfig | None = None):
        self.config = config or RewardConfig()
        self._judge = None
        self._preference = None
        self._pool = None
        self._lock = threading.Lock()

    # ---- backends (built lazily: a config naming a remote scorer costs nothing until used)

    @property
    def pool(self):
        if self._pool is None:
            from .pool import Pool

            self._pool = Pool(self.config.pool_dir)
        return self._pool

    def judge_backend(self):
        with self._lock:
            if self._judge is None:
                c = self.config
                if c.judge_backend == "openai":
                    from .judge import OpenAIJudge

                    problem = c.api_key_env_problem()
                    if problem:  # never ask without the key the config names, nor with another one
                        raise JudgeBackendError(f"judge_api_key_env {problem}")
                    self._judge = OpenAIJudge(
                        base_url=c.resolved_judge_url() or "", model=c.resolved_judge_model(),
                        api_key=c.resolved_api_key(), timeout_s=c.judge_timeout_s, retries=c.judge_retries,
                        backoff_s=c.judge_backoff_s, concurrency=c.judge_concurrency,
                        image_size=c.judge_image_size, cache_size=c.judge_cache_size)
                else:
                    from .critic import LocalJudge

                    self._judge = LocalJudge(size=c.render_size)
            return self._judge

    def preference_backend(self):
        with self._lock:
            if self._preference is None:
                c = self.config
                if c.preference_backend == "hpsv3":
                    from .hps_client import HPSv3Client

                    self._preference = HPSv3Client(c.resolved_preference_url(), timeout_s=c.preference_timeout_s,
                                                   retries=c.preference_retries)
                else:
                    from .preference import LocalPreference

                    self._preference = LocalPreference(size=c.render_size)
            return self._preference

    def references(self, group_seed: int) -> list[tuple[str, np.ndarray]]:
        c = self.config
        entries = self.pool.sample_references(group_seed, c.references.model_dump(), c.reference_split)
        size = c.render_size if c.judge_backend == "local" else None
        return [(e.id, self.pool.image(e, size)) for e in entries]

    # ---- scoring

    def score(self, *, image: np.ndarray | None, program=None, mode: Mode = "sketch", source: str | None = None,
              n_calls: int | None = None, violations: list[str] | tuple[str, ...] = (), error: str | None = None,
              weights: Weights | None = None, group_seed: int = 0, prompt: str | None = None,
              action_space: str | list[str] | None = None, coverage: float | None = None,
              background: tuple[int, int, int] | None = None) -> RewardResult:
        """One painting's reward with every term in the breakdown (see the module doc for 0 vs None).

        ``coverage`` may be passed when the caller already measured it (saves ~15 ms at 600x600);
        ``prompt`` is what the painting should show (HPSv3 reads it). ``background`` (RGB) is the canvas colour
        coverage is measured against: the program's ``background`` when a program is given, else white, so an
        image scored without its program needs it (a blank cream canvas is otherwise all painted).
        """
        if mode not in ("sketch", "tools", "revise"):
            raise RewardError(f"mode must be sketch, tools or revise, got {mode!r}")
        _check_inputs(image, n_calls, group_seed, coverage)
        # a mapping of some terms is taken as a reset takes it: over the weights this model was configured with
        w = self.config.weights_resolved() if weights is None else resolve_weights(
            weights=weights, base=self.config.weights_resolved())
        wd = w.as_dict()
        if program is not None and (n_calls is None or mode == "tools"):
            # the calls the painting reads: the environment's count of every call paid 420 `noStroke()` in full
            n_calls = counted_calls(program.commands)
        if image is None and program is not None and not error and not violations:
            from ..render import RenderError, render_program

            try:
                image = render_program(program)
            except RenderError as e:  # the program's fault: the gate's 0
                error = f"render refused the program: {e}"
            except Exception as e:  # noqa: BLE001 - the renderer's own failure (a bug, a plain ValueError): None
                return RewardResult(reward=None, weights=wd, gate_reasons=[], error=f"renderer failed: {_one_line(e)}",
                                    breakdown={"gate": None, "length": length_score(mode=mode, source=source,
                                                                                    n_calls=n_calls, program=program),
                                               "judge": None, "preference": None})
        gate = check_gate(image=image, program=program, source=source if mode != "tools" else None,
                          violations=violations, error=error,
                          action_space=action_space if action_space is not None else "full",
                          coverage_value=coverage, background=background)
        length = length_score(mode=mode, source=source, n_calls=n_calls, program=program)
        breakdown: dict[str, float | None] = {"gate": gate.value, "length": length, "judge": None, "preference": None}
        if not gate.passed:
            return RewardResult(reward=0.0, breakdown=breakdown, weights=wd, gate_reasons=gate.reasons,
                                critique="Gate failed: " + "; ".join(gate.reasons), coverage=gate.coverage)
        assert image is not None
        critique: list[str] = []
        bias = 0
        refs: list[str] = []
        c = self.config
        # the local scorers see the painting at render_size, as they see the references (and as validate_pool does)
        local = resize(image, c.render_size) if "local" in (c.judge_backend, c.preference_backend) else image
        try:
            if w.judge > 0:
                seen = local if c.judge_backend == "local" else image
                jr = judge_against(self.judge_backend(), seen, self.references(group_seed))
                breakdown["judge"], bias, refs = jr.score, jr.position_bias, jr.reference_ids
                critique.append(f"Judge {jr.score:.2f} against the references: " + "; ".join(jr.reasons) + ".")
            if w.preference > 0:
                pv, note = self.preference_backend().score(local if c.preference_backend == "local" else image,
                                                           prompt or "")
                breakdown["preference"] = pv
                critique.append(f"Preference {pv:.2f}: {note}.")
        except Exception as e:  # noqa: BLE001 - a scorer failure is infrastructure: None with the reason
            from .hps_client import PreferenceBackendError
            from .pool import PoolRenderError

            known = (JudgeBackendError, PreferenceBackendError, PoolRenderError)
            msg = str(e) if isinstance(e, known) else f"{type(e).__name__}: {e}"
            return RewardResult(reward=None, breakdown=breakdown, weights=wd, gate_reasons=[],
                                error=msg.splitlines()[0] if msg else type(e).__name__,
                                coverage=gate.coverage, judge_position_bias=bias, references=refs)
        total = w.gate * 1.0 + w.length * length
        total += w.judge * (breakdown["judge"] or 0.0) + w.preference * (breakdown["preference"] or 0.0)
        return RewardResult(reward=float(total), breakdown=breakdown, weights=wd, gate_reasons=[],
                            critique=" ".join(critique), judge_position_bias=bias, coverage=gate.coverage,
                            references=refs)

    def weighed_terms(self) -> list[str]:
        """The scorer terms (``judge``, ``preference``) the configured weights count, a weight > 0: the backends
        ``score`` asks with them, and so the only ones ``check`` asks (as score, serve and train check only their
        URLs: a judge weighed 0 with no judge_url failed check alone)."""
        w = self.config.weights_resolved()
        return [t for t in ("judge", "preference") if getattr(w, t) > 0]

    def check(self) -> list[str]:
        """Problems with the backends the configured weights count (empty when all answer); never raises."""
        problems: list[str] = []
        w, weighed = self.config.weights_resolved(), self.weighed_terms()
        for name, get in (("judge", self.judge_backend), ("preference", self.preference_backend)):
            if name not in weighed:
                continue
            try:
                backend = get()
                p = backend.check()
            except Exception as e:  # noqa: BLE001
                p = f"{name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
            if p:
                problems.append(p)
        if w.judge > 0:
            try:
                self.references(0)
            except Exception as e:  # noqa: BLE001
                problems.append(f"references: {str(e).splitlines()[0]}")
        return problems
