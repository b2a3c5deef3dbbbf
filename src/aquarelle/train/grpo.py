"""GRPO with TRL's GRPOTrainer: tools and revise modes through environment_factory, sketch mode by parsing.

Every rollout is kept (rollouts.jsonl + images/), every step is measured
(metrics.jsonl, including the share of the step spent in the environment), and the
run directory's config.json is enough to reproduce the run.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..outputs import checkpoints
from ..provenance import provenance
from . import TRAIN_COMPLETION_CHARS, Terminated, read_summary, say
from .completion import completion_text, prompt_opens_thinking, unrun_calls
from .config import TrainConfig
from .data import load_prompts, prompt_dataset, prompt_file
from .envglue import EnvTimer, Outcome, SketchScorer, env_class, finish_episode, timed_class
from .model import SMOLLM2, SYSTEMS, TINY, can_call_tools, load_policy, one_call_per_turn
from .preflight import grpo_config, preflight
from .procs import Procs, launched_as_one, single_process_env

METRIC_KEYS = ("step", "reward", "reward_std", "frac_reward_zero_std", "gate_mean", "length_mean", "judge_mean",
               "preference_mean", "loss", "grad_norm", "step_time", "env_time_share", "tool_calls_mean",
               "completion_len_mean")
TERMS = ("gate", "length", "judge", "preference")


@dataclass
class StepStats:
    """What the reward function saw in the current step (read by the metrics callback)."""

    terms: dict[str, list[float]] = field(default_factory=lambda: {t: [] for t in TERMS})
    rewards: list[float | None] = field(default_factory=list)
    n_none: int = 0
    env_s: float = 0.0
    tool_calls: list[int] = field(default_factory=list)


class Recorder:
    """Writes rollouts and images as they are scored; hands per-step stats to the metrics callback."""

    def __init__(self, run: Path, mode: str, image_size: int, procs: Procs | None = None):
        self.run = run
        self.mode = mode
        self.image_size = image_size
        self.procs = procs or Procs()
        if self.procs.main:
            (run / "images").mkdir(parents=True, exist_ok=True)
        self.stats = StepStats()
        self._placed: dict[int, tuple[int, int]] = {}  # step -> (rollouts, groups) recorded at it so far
        self._pending: list[tuple[dict, bytes | None, int]] = []  # several processes: (rollout, png, tool calls)

    def take(self) -> StepStats:
        s, self.stats = self.stats, StepStats()
        return s

    def place(self, step: int, n: int, group_size: int) -> tuple[int, int]:
        """Where a batch of ``n`` rollouts generated at ``step`` starts: (its first image index, its first group).

        Why: TRL generates more than once per optimizer step when ``steps_per_generation * num_iterations`` is
        below ``gradient_accumulation_steps``; each batch numbered its rollouts and groups from 0 again, so two
        GRPO groups of different prompts shared one (step, group) in eval and the second batch's images
        overwrote the first's.
        """
        rows, groups = self._placed.get(step, (0, 0))
        self._placed[step] = (rows + n, groups + -(-n // group_size))
        return rows, groups

    def record(self, *, step: int, group: int, index: int, row: dict, outcome: Outcome, code: str,
               tool_calls: int, completion: str = "") -> None:
        """One rollout; ``index`` and ``group`` are global (over every process's share of the batch)."""
        self._tally(outcome.reward, outcome.breakdown, tool_calls)
        png = None
        if self.procs.world == 1:
            image = self._save_image(outcome, step, index)
        else:  # drawn here, written by the main process in flush()
            png = self._png(outcome)
            image = self._image_name(step, index) if png is not None else None
        methods: dict[str, int] = {}
        if outcome.program:
            for c in outcome.program.get("commands", []):
                m = c.get("method") if isinstance(c, dict) else None
                if m:
                    methods[m] = methods.get(m, 0) + 1
        rec = {
            "step": step, "prompt": row.get("painting_prompt"), "prompt_id": row.get("prompt_id"),
            "split": row.get("split"), "mode": self.mode, "group": group, "code": code, "image": image,
            "seed": row.get("seed"),  # the episode's seed: `aquarelle score --seed` scores a sketch again
            "reward": outcome.reward, "breakdown": outcome.breakdown, "coverage": outcome.coverage,
            "n_calls": outcome.n_calls or sum(methods.values()), "errors": outcome.errors + (
                [outcome.error] if outcome.error else []), "methods": methods, "feedback": outcome.feedback,
            "completion": completion[:TRAIN_COMPLETION_CHARS],
            "judge_position_bias": outcome.judge_position_bias, "judge_pairs": outcome.judge_pairs,
        }
        if self.procs.world > 1:
            self._pending.append((rec, png, tool_calls))
            return
        with open(self.run / "rollouts.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")

    def flush(self) -> None:
        """Several processes: every process's rollouts of this batch to the main one, which writes their images and
        lines in global order and counts them in the step's stats. A collective: every process calls it once per
        reward call (TRL calls the reward function on every process for every generation batch).

        Why one writer: the images and lines of N processes appended to one file from N processes could interleave
        (lines over the pipe buffer size) and need a shared file system on several machines; one process writing
        everything keeps the single-process format and order exactly, for the price of sending the PNGs once.
        """
        if self.procs.world == 1:
            return
        mine, self._pending = self._pending, []
        everyone = self.procs.gather(mine)
        if not self.procs.main:
            return
        lines = []
        for k, (rec, png, tool_calls) in enumerate(everyone):
            if k >= len(mine):  # the main process counted its own in record()
                self._tally(rec["reward"], rec["breakdown"], tool_calls)
            if png is not None:
                rec["image"] = self._write_png(rec["image"], png, rec["errors"])
            lines.append(json.dumps(rec) + "\n")
        with open(self.run / "rollouts.jsonl", "a") as f:
            f.write("".join(lines))

    def _tally(self, reward: float | None, breakdown: dict, tool_calls: int) -> None:
        st = self.stats
        st.rewards.append(reward)
        st.n_none += reward is None
        st.tool_calls.append(tool_calls)
        for t in TERMS:
            v = breakdown.get(t)
            if v is not None:
                st.terms[t].append(float(v))

    @staticmethod
    def _image_name(step: int, index: int) -> str:
        return f"images/step{step:05d}_{index:03d}.png"

    def _png(self, outcome: Outcome) -> bytes | None:
        """The rollout's picture as PNG bytes (the environment's, else the program rendered at ``image_size``), or
        None with the reason in its errors."""
        try:
            if outcome.png_b64:
                return base64.b64decode(outcome.png_b64)
            if outcome.program:
                import io

                from PIL import Image

                from aquarelle.brush import Program
                from aquarelle.render import render_program

                buf = io.BytesIO()
                Image.fromarray(render_program(Program.from_json(outcome.program), size=self.image_size)).save(
                    buf, format="PNG")
                return buf.getvalue()
        except Exception as e:  # noqa: BLE001 - a missing picture must not kill training; say so in the rollout
            outcome.errors.append(_not_saved(e))
        return None

    def _write_png(self, rel: str, png: bytes, errors: list) -> str | None:
        """Write the picture under the run; its path, or None with the reason in ``errors``."""
        try:
            (self.run / rel).write_bytes(png)
            return rel
        except OSError as e:  # a missing picture must not kill training; the rollout says so
            errors.append(_not_saved(e))
            return None

    def _save_image(self, outcome: Outcome, step: int, index: int) -> str | None:
        png = self._png(outcome)
        return self._write_png(self._image_name(step, index), png, outcome.errors) if png is not None else None


def _not_saved(e: Exception) -> str:
    return f"image not saved: {str(e).splitlines()[0] if str(e) else type(e).__name__}"


def _transcript(completion: Any) -> str:
    """The rollout as the model wrote it (tool calls and tool results inline), for reading rollouts.jsonl."""
    if isinstance(completion, str):
        return completion
    parts = []
    for m in completion:
        if m.get("role") == "assistant":
            if m.get("content"):
                parts.append(str(m["content"]))
            for c in m.get("tool_calls") or []:
                fn = c.get("function", c)
                parts.append(f"<tool_call>{json.dumps({'name': fn.get('name'), 'arguments': fn.get('arguments')})}"
                             "</tool_call>")
        elif m.get("role") == "tool":
            parts.append(f"<tool_response>{m.get('content')}</tool_response>")
    return "\n".join(parts)


def _tool_call_count(completion: Any) -> int:
    if isinstance(completion, str):
        return completion.count("<tool_call>")
    return sum(m.get("role") == "tool" for m in completion)  # calls that ran: TRL never runs the last turn's calls


def make_reward_func(cfg: TrainConfig, recorder: Recorder, timer: EnvTimer, num_generations: int,
                     opens_thinking: bool = False) -> Any:
    """One reward function for every mode; None (infrastructure failure) is passed to TRL as None.
    ``opens_thinking``: the policy's prompt opens a <think> its sketch-mode completions start inside."""
    scorer = SketchScorer(cfg, timer) if cfg.mode == "sketch" else None
    weights = cfg.reward.weights

    def painting_reward(prompts, completions, environments=None, trainer_state=None, **cols):
        # the optimizer step during which these were generated (the policy after global_step updates); with
        # generation reuse (steps_per_generation, num_iterations) the steps that train on buffered rollouts get none
        step = (trainer_state.global_step + 1) if trainer_state is not None else 0
        # TRL gathers the processes' equal shares in rank order and groups the gathered batch by num_generations:
        # this process's i-th completion is the batch's (rank * n + i)-th, in group (rank * n + i) // G
        n, procs = len(completions), recorder.procs
        first, group0 = recorder.place(step, n * procs.world, num_generations)
        first += procs.rank * n
        out: list[float | None] = []
        for i, completion in enumerate(completions):
            row = {k: v[i] for k, v in cols.items() if isinstance(v, list) and len(v) == len(completions)}
            if environments is not None:
                try:
                    with timer.busy():
                        outcome = finish_episode(environments[i])
                except Exception as e:  # noqa: BLE001 - the server stayed away: None with the reason, not a crash
                    outcome = Outcome(reward=None, error="environment failed: " + (
                        str(e).splitlines()[0] if str(e) else type(e).__name__))
                code = json.dumps(outcome.program) if outcome.program else (outcome.source or "")
                if cfg.mode == "revise":
                    code = outcome.source or code
                outcome.errors += unrun_calls(completion, cfg.generation.max_completion_length)
            else:
                code, outcome = scorer.score_completion(completion_text(completion),
                                                        prompt=row.get("painting_prompt", ""),
                                                        seed=int(row.get("seed", 0)), preset=row.get("preset"),
                                                        weights=weights, opens_thinking=opens_thinking)
            recorder.record(step=step, group=group0 + (procs.rank * n + i) // num_generations, index=first + i,
                            row=row, outcome=outcome, code=code, tool_calls=_tool_call_count(completion),
                            completion=_transcript(completion))
            out.append(outcome.reward)
        recorder.flush()
        return out

    painting_reward.__name__ = "painting_reward"
    return painting_reward


def record_resume(run: Path, entry: dict, max_steps: int | None = None) -> None:
    """Append ``entry`` to config.json's ``resumes`` and record the steps the run now trains to (written whole,
    then swapped in). Without it, config.json said `optim.max_steps: 2` of a run resumed to 5, and a later bare
    `--resume` said "nothing to resume: the run has trained its optim.max_steps (2) steps" at checkpoint 4."""
    path = run / "config.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return  # preflight checked it; a run without one has nothing to add to
    data.setdefault("resumes", []).append(entry)
    if max_steps is not None and isinstance(data.get("config"), dict):
        data["config"].setdefault("optim", {})["max_steps"] = max_steps
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)


def _mean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return sum(xs) / len(xs) if xs else None


def _metrics_callback(run: Path, recorder: Recorder, timer: EnvTimer, trackio_run: Any = None,
                      procs: Procs | None = None) -> Any:
    from transformers import TrainerCallback

    class MetricsCallback(TrainerCallback):
        """One metrics.jsonl line per logged step (every ``logging_steps``th and the last, ``_last_step_logs``): TRL's
        numbers plus ours, each over the steps since the previous line (the window).

        Why the step time is summed over the window: the environment time and the rollouts are taken over it, and a
        step time of the last step alone made ``env_time_share`` the window's environment seconds over one step's
        (a tiny run: ~0.20 with logging_steps 1, 0.34-0.37 with 2); the line's times are per-step means over the
        window and the share is the window's environment seconds over its step seconds.
        """

        def __init__(self) -> None:
            self.t0 = None
            self.step_s = 0.0  # seconds in the optimizer steps since the last line
            self.steps = 0  # how many

        def on_step_begin(self, args, state, control, **kw):
            self.t0 = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            if self.t0 is not None:
                self.step_s += time.perf_counter() - self.t0
                self.steps += 1
                self.t0 = None

        def on_log(self, args, state, control, logs=None, **kw):
            logs = logs or {}
            if "reward" not in logs and "loss" not in logs:
                return
            st = recorder.take()  # several processes: the main one's holds every process's rollouts (flush())
            env_s, _ = timer.take()
            step_s, steps = self.step_s, self.steps
            self.step_s, self.steps = 0.0, 0
            if procs is not None and procs.world > 1:  # on_log runs on every process, so this collective is safe
                env_all = procs.gather([env_s])  # the processes ran their environments side by side: their mean
                env_s = sum(env_all) / len(env_all)
                if not procs.main:
                    return
            step_time = step_s / steps if steps else 0.0  # per-step means over the window
            env_time = env_s / steps if steps else env_s
            line = {
                "step": state.global_step,
                "reward": logs.get("reward", _mean([r for r in st.rewards if r is not None])),
                "reward_std": logs.get("reward_std"),
                "frac_reward_zero_std": logs.get("frac_reward_zero_std"),
                **{f"{t}_mean": _mean(st.terms[t]) for t in TERMS},
                "loss": logs.get("loss"),
                "grad_norm": logs.get("grad_norm"),
                "step_time": round(step_time, 3),
                "env_time": round(env_time, 4),
                "env_time_share": round(env_s / step_s, 4) if step_s > 0 else None,
                "tool_calls_mean": logs.get("tools/call_frequency", _mean([float(x) for x in st.tool_calls])),
                "completion_len_mean": logs.get("completions/mean_length"),
                "rewards_none": st.n_none,
                "tools_failure_frequency": logs.get("tools/failure_frequency"),
                "learning_rate": logs.get("learning_rate"),
            }
            if procs is not None and procs.world > 1:  # what the step's own numbers cover (a plain run's lines as before)
                line.update(processes=procs.world, rollouts=len(st.rewards))
            with open(run / "metrics.jsonl", "a") as f:
                f.write(json.dumps(line) + "\n")
            if trackio_run is not None:
                trackio_run.log({k: v for k, v in line.items() if isinstance(v, (int, float))}, step=state.global_step)

    return MetricsCallback()


def _last_step_logs() -> Any:
    """A callback that makes the last optimizer step write a metrics line whatever ``logging_steps`` says.

    Why: transformers logs every ``logging_steps``th step only, so at 4 steps and ``logging_steps`` 3 step 4's line
    came only from the end-of-training log (TRL adds its pending metrics to it), with no loss, grad_norm or
    learning_rate, and a step 4 that generated nothing (generation reuse) was in no line at all, nor in summary.json's
    means (taken over the lines). The last step's line covers the steps since the previous one, as any line does
    (transformers' loss and TRL's metrics are windowed the same way); a step that is a logging step anyway logs once
    (transformers logs a step at most once).
    """
    from transformers import TrainerCallback

    class LastStepLogs(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.max_steps and state.global_step >= state.max_steps:
                control.should_log = True
            return control

    return LastStepLogs()


def _resumed_progress(trainer: Any) -> None:
    """Swap transformers' progress bar for one that starts at the step a resume starts from.

    Why: transformers' bar starts at 0 and the first step after a resume moves it by every step the checkpoint had
    trained, in the time of one step: a run resumed at step 40 of 50 read "41/50 [00:31<00:00, 1.3it/s]" (one step
    took 31 s) and its estimate of the time left was a tenth of the truth until the average forgot that jump."""
    from transformers import ProgressCallback

    if trainer.pop_callback(ProgressCallback) is None:  # disable_tqdm: transformers prints instead
        return

    class ResumedProgress(ProgressCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            if state.is_world_process_zero:
                from tqdm.auto import tqdm

                self.training_bar = tqdm(total=state.max_steps, initial=state.global_step, dynamic_ncols=True)
            self.current_step = state.global_step

    trainer.add_callback(ResumedProgress)


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM raises `Terminated` while training (in the main thread), so a run stopped by
    `timeout`, a scheduler or `docker stop` says where it stands as Ctrl-C does, instead of dying without a word."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise Terminated

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:  # (None: a handler not set from Python, which signal.signal cannot take back)
        signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


#: transformers' warning when a checkpoint lacks weights the model has (trainer._issue_warnings_after_load)
_MISSING_KEYS = "There were missing keys in the checkpoint model loaded: "


def _quiet_tied_head_warning(model: Any) -> None:
    """A resume of a model whose output head is its input embedding (tie_word_embeddings: the tiny model, SmolLM2,
    Qwen2.5 up to 3B) warned "There were missing keys in the checkpoint model loaded: ['lm_head.weight']": the
    checkpoint does not save the tied copy, and the head is the loaded embedding (a resumed run's completions are
    byte-identical to an unbroken run's). That one warning is dropped; any other missing key is still said."""
    import logging

    if not getattr(getattr(model, "config", None), "tie_word_embeddings", False):
        return

    def only_the_tied_head(record: logging.LogRecord) -> bool:
        return record.getMessage() != f"{_MISSING_KEYS}['lm_head.weight']."

    _filter_once("transformers.trainer", only_the_tied_head)


#: TRL's warning when every reward function returned None for a rollout, dumping its whole kwargs
_ALL_NONE = "All reward functions returned None for the following kwargs"


def _short_unscored_warning() -> None:
    """TRL warns, once per step with an unscored rollout, with the rollout's every reward kwarg (its prompt,
    completion, transcript, image: thousands of characters, each step of a scorer outage). A reward None is
    ours to give (infrastructure, not the policy) and its reason is recorded: one line says so instead."""
    import logging

    def one_line(record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(_ALL_NONE):
            record.msg, record.args = ("a rollout of this step is unscored (reward None: a scorer, browser or env "
                                       "server failed, not the policy); why is in rollouts.jsonl and eval's "
                                       "unscored reasons"), ()
        return True

    _filter_once("trl.trainer.grpo_trainer", one_line)


def _filter_once(logger: str, fn: Any) -> None:
    """Add ``fn`` as a filter of ``logger`` unless one of its name is there (each run of a process adds it)."""
    import logging

    log = logging.getLogger(logger)
    if not any(getattr(f, "__name__", "") == fn.__name__ for f in log.filters):
        log.addFilter(fn)


def _unstart(run: Path) -> None:
    """A new run whose trainer could not be built (PEFT finding no target module, a reference model that will not
    load) left its config.json and empty folders, and the same --out was then refused as a run "with no
    checkpoint to resume from": what this start wrote goes, so the command can be run again once mended."""
    (run / "config.json").unlink(missing_ok=True)
    for name in ("images", "checkpoints"):
        try:
            (run / name).rmdir()  # only when empty: nothing was trained
        except OSError:
            pass


def _rotation_note(run: Path, limit: int | None) -> str | None:
    """A resumed run holding more checkpoints than optim.save_total_limit loses its oldest at the next save (the
    trainer rotates them): said before it happens, since a run begun before the limit existed kept every one."""
    held = checkpoints(run)
    if limit is None or len(held) <= limit:
        return None
    return (f"note: the run holds {len(held)} checkpoints ({held[0].name} to {held[-1].name}) and "
            f"optim.save_total_limit is {limit}: the next save deletes all but the newest {limit}; set "
            f"optim.save_total_limit: null in the config to keep them")


def _last_checkpoint(run: Path) -> str | None:
    ck = checkpoints(run)
    return str(ck[-1]) if ck else None


def _finished(run: Path, resume_from: str | None, max_steps: int) -> dict | None:
    """The summary of a run ``--resume`` finds complete: its last checkpoint at ``max_steps`` or past it, and its
    final checkpoint and summary written. Resuming it trained one more step (transformers' loop runs a step when
    it starts at max_steps) and moved its checkpoint past the configured end."""
    if not resume_from or int(resume_from.rsplit("-", 1)[-1]) < max_steps:
        return None
    summary = read_summary(run)  # {} when missing or unreadable
    whole = (run / "checkpoint" / "aquarelle.json").is_file() and bool(summary)
    return summary if whole and summary.get("steps", 0) >= max_steps else None


def _drop_steps_after(run: Path, step: int) -> None:
    def kept(line: str) -> bool:
        try:
            return json.loads(line)["step"] <= step
        except (ValueError, KeyError, TypeError):  # a line torn by the kill
            return False

    for name in ("metrics.jsonl", "rollouts.jsonl"):
        f = run / name
        if f.is_file():  # written aside and swapped in: a second kill here leaves the file whole
            tmp = f.with_name(f.name + ".tmp")
            # line by line: a long run's rollouts.jsonl (~1 GB at 2,000 steps) was read whole, 2.8 GB of memory
            with f.open(encoding="utf-8", errors="replace", newline="\n") as src, \
                    tmp.open("w", encoding="utf-8", newline="\n") as dst:
                for x in src:
                    if kept(x):
                        dst.write(x if x.endswith("\n") else x + "\n")
            os.replace(tmp, f)


def train(cfg: TrainConfig, out: str | Path, *, resume: bool = False, demos: str | None = None,
          log: Any = None, config_file: str | None = None) -> dict:
    """Run GRPO into the run directory ``out``; returns a summary of what happened. ``config_file``: where ``cfg``
    was read from, for the preflight's errors.

    Under a multi-process launch (``accelerate launch --num_processes N``) every process calls this; the main one
    alone checks and writes the run directory (procs.py), and every process returns the main one's summary.

    A start that fails before anything is written to ``out`` (a model that will not load, a warm start that
    fails) leaves none of the folders it made behind: an empty run directory only confused the next look at it.
    """
    from aquarelle.outputs import missing_folders

    made = missing_folders(Path(out)) if Procs.from_env().main else []
    try:
        return _train(cfg, out, resume=resume, demos=demos, log=log, config_file=config_file)
    except BaseException:
        for folder in made:  # deepest first; one that holds anything stays, and so do the ones above it
            try:
                folder.rmdir()
            except OSError:
                break
        raise


def _train(cfg: TrainConfig, out: str | Path, *, resume: bool, demos: str | None, log: Any,
           config_file: str | None) -> dict:
    log = log or say
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    run = Path(out)
    procs = Procs.from_env()
    if procs.world > 1 and not procs.main:
        log = _prefixed(log, f"[rank {procs.rank}] ")
    if launched_as_one():
        log("note: one training process: `accelerate launch --cpu --num_processes N` starts only one on a CPU "
            "(accelerate's simple launcher); use `accelerate launch --multi_gpu --num_processes N` (or torchrun)")
    resume_from = finished = None
    if procs.main:
        # before any model loads: a wrong setting costs seconds
        grpo_args = preflight(cfg, run, resume=resume, config_file=config_file, log=log)
        resume_from = _last_checkpoint(run) if resume else None  # preflight made sure there is one
        finished = _finished(run, resume_from, cfg.optim.max_steps)
        if resume_from:  # steps after the checkpoint run again: drop what their first run recorded
            _drop_steps_after(run, int(resume_from.rsplit("-", 1)[-1]))
            rotating = _rotation_note(run, cfg.optim.save_total_limit)
            if rotating and finished is None:
                log(rotating)
        run.mkdir(parents=True, exist_ok=True)
    else:  # the main process checks --out (which it is about to fill) and the services: the same config here
        grpo_args = grpo_config(cfg, run, tools=cfg.mode in ("tools", "revise"))
    procs.connect(grpo_args)  # a failed preflight ends the main process, and the launcher the others
    finished = procs.broadcast(finished)
    if finished is not None:  # transformers would train one step past max_steps from a last checkpoint
        log(f"nothing to resume: the run has trained its optim.max_steps ({cfg.optim.max_steps}) steps; "
            "raise --max-steps to train on")
        return finished

    mode = cfg.mode
    rows = load_prompts(cfg.prompts, split="train")

    env_timer = EnvTimer()
    base_env = env_class(mode, cfg.env.action_space, cfg) if mode in ("tools", "revise") else None
    env_cls = timed_class(base_env, env_timer) if base_env is not None else None

    # the policy: warm-start it first when it cannot call tools (or write sketches) yet
    model_name = cfg.model.name
    warm = None
    wants_warm = cfg.sft.auto and not resume and (model_name == SMOLLM2 or model_name in TINY or
                                                  (mode != "sketch" and not can_call_tools(model_name)))
    warm_here = wants_warm and model_name not in TINY  # tiny models are warm-started in memory by the caller (tests)
    if warm_here and model_name != SMOLLM2 and procs.main:
        log(f"note: {model_name} cannot call tools yet (its chat template does not mention tools, or its "
            f"aquarelle.json says so), so a warm start (SFT on the pool's demonstrations) runs first; sft.auto: "
            f"false trains the model as it is")
    sft_env = env_class(mode, cfg.env.action_space, cfg) if warm_here and mode != "sketch" else None
    lock = None
    if warm_here:  # trained once: the main process (or the only one) takes the cache entry's lock first
        from .sft import rollout_budget, warm_start_lock

        lock = warm_start_lock(model_name, mode=mode, action_space=cfg.env.action_space, cfg=cfg.sft,
                               env_cls=sft_env, demos_source=demos, **rollout_budget(cfg))
        if procs.main:
            _acquire(lock, log)
    # several processes: the others wait here until the main one has checked and made the run directory (and holds
    # the warm start's lock); every one resumes from the same checkpoint
    resume_from = procs.broadcast(resume_from)
    if warm_here:
        if not procs.main:
            lock.acquire()  # until the main process has trained it (or found it cached)
        try:
            if procs.world == 1:  # two runs started at once train one entry in turn, never into one DEST.tmp
                from .sft import ensure_warm_start, rollout_budget

                warm = ensure_warm_start(model_name, mode=mode, action_space=cfg.env.action_space, cfg=cfg.sft,
                                         env_cls=sft_env, demos_source=demos, seed=cfg.optim.seed, log=log,
                                         **rollout_budget(cfg))
            else:
                warm = _warm_start_apart(cfg, demos, sft_env, log)
        finally:
            lock.release()
    if demos and warm is None:  # the demonstrations only feed a warm start: say so rather than drop them silently
        why = ("--resume continues from a checkpoint" if resume else "sft.auto is off" if not cfg.sft.auto else
               "tiny models are not warm-started here" if model_name in TINY else "the model already calls tools")
        log(f"note: --demos {demos} is not used: no warm start runs ({why})")
    policy_src = str(warm) if warm is not None else model_name
    policy = load_policy(policy_src, dtype=cfg.model.weights_dtype())
    if cfg.model.lora and isinstance(cfg.model.train_layers, int) and procs.main:
        log(f"note: model.train_layers ({cfg.model.train_layers}) has no effect with model.lora: the adapter sits on "
            f"every layer model.lora_target_modules names")
    if mode == "revise" and cfg.env.revisions + 1 > cfg.generation.max_tool_calling_iterations and procs.main:
        log(f"note: env.revisions is {cfg.env.revisions}, but an episode runs at most "
            f"generation.max_tool_calling_iterations ({cfg.generation.max_tool_calling_iterations}) tool turns: the "
            f"sketch and {cfg.generation.max_tool_calling_iterations - 1} revision(s); raise it to "
            f"{cfg.env.revisions + 1} to reach the others")
    if mode != "sketch" and one_call_per_turn(policy.tokenizer):
        log(f"note: {model_name}'s chat template carries one tool call per turn (TRL reads a second as text), so an "
            f"episode runs at most generation.max_tool_calling_iterations "
            f"({cfg.generation.max_tool_calling_iterations}) calls; raise it for this model")
    import torch

    layers = cfg.model.layers_to_train(torch.cuda.is_available())
    if layers and not cfg.model.lora:
        from .model import freeze_below

        freeze_below(policy.model, layers)

    system = SYSTEMS[mode]
    ds = prompt_dataset(rows, mode=mode, system=system, action_space=cfg.env.action_space, preset=cfg.reward.preset,
                        seed=cfg.optim.seed, max_steps=cfg.env.max_steps, revisions=cfg.env.revisions)

    made_by = provenance()  # versions, commit, and whether the package's sources differ from it
    config_out = {"config": cfg.model_dump(), "policy": policy_src, "start_policy": policy_src,
                  "warm_start": str(warm) if warm else None, **made_by, "argv": sys.argv,
                  "n_train_prompts": len(rows), "prompt_file": str(prompt_file(cfg.prompts)),  # eval's held-out set
                  "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    if not resume and procs.main:
        (run / "config.json").write_text(json.dumps(config_out, indent=1))
    elif procs.main:  # which code and command trained the steps after each checkpoint, beside the first run's
        record_resume(run, {"started": config_out["started"], "from": Path(resume_from).name if resume_from else None,
                            "argv": sys.argv, **made_by}, max_steps=cfg.optim.max_steps)
    return _fit(cfg, run, policy, ds, env_cls, env_timer, resume_from, config_out, log, grpo_args, procs)


def _adapter_with_a_base(model: Any, ck: Path) -> None:
    """A LoRA adapter names its base model, which ``load_policy`` loads it onto; a base built in memory (the ``tiny``
    test model) has no name, and `paint`/`eval` then asked the Hub for "None" (30 s of retries). Such an adapter is
    saved merged into its base instead."""
    cfg_path = ck / "adapter_config.json"
    try:
        base = json.loads(cfg_path.read_text()).get("base_model_name_or_path")
    except (OSError, ValueError):
        return
    if base:
        return
    merged = model.merge_and_unload()
    for f in ck.glob("adapter_*"):
        f.unlink()
    merged.save_pretrained(str(ck))


def _prefixed(log: Any, prefix: str) -> Any:
    return lambda m: log(prefix + m)


def _warm_start_apart(cfg: TrainConfig, demos: str | None, sft_env: type | None, log: Any) -> Path:
    """The cached warm start, trained first in a separate single-process child when it is missing.

    Why a child: this process belongs to the launch's process group, and an SFTTrainer built here would join it
    (a DistributedDataParallel warm start the other processes never enter: it hangs), or reset accelerate's state
    under the GRPO trainer's feet. The child sees no launch variables, so it trains as a plain run would.
    """
    from .sft import cached_warm_start, rollout_budget

    cached = cached_warm_start(cfg.model.name, mode=cfg.mode, action_space=cfg.env.action_space, cfg=cfg.sft,
                               env_cls=sft_env, demos_source=demos, **rollout_budget(cfg))
    if cached is not None:
        log(f"warm start: using cached {cached}")
        return cached
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(single_process_env(saved))  # what the child is spawned with (on submit)
        try:
            fut = pool.submit(_warm_start_child, cfg, demos)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        return Path(fut.result())


def _acquire(lock: Any, log: Any) -> None:
    """Take the warm start's lock, saying so when another run holds it (it may be training for many minutes)."""
    from filelock import Timeout

    try:
        lock.acquire(timeout=0)
    except Timeout:
        log(f"warm start: another run is making this warm start ({lock.lock_file} is held); waiting for it")
        lock.acquire()


def _warm_start_child(cfg: TrainConfig, demos: str | None) -> str:
    from .sft import ensure_warm_start, rollout_budget

    keep = single_process_env()  # spawn copied the cleaned environment: make sure nothing brought the launch's back
    for k in list(os.environ):
        if k not in keep:
            del os.environ[k]
    env_cls = env_class(cfg.mode, cfg.env.action_space, cfg) if cfg.mode != "sketch" else None
    return str(ensure_warm_start(cfg.model.name, mode=cfg.mode, action_space=cfg.env.action_space, cfg=cfg.sft,
                                 env_cls=env_cls, demos_source=demos, seed=cfg.optim.seed,
                                 log=lambda m: print(m, file=sys.stderr, flush=True), **rollout_budget(cfg)))


def _fit(cfg: TrainConfig, run: Path, policy: Any, ds: Any, env_cls: type | None, env_timer: EnvTimer,
         resume_from: str | None, config_out: dict, log: Any, grpo_args: Any, procs: Procs | None = None) -> dict:
    from trl import GRPOTrainer

    procs = procs or Procs()
    G = cfg.generation.num_generations
    recorder = Recorder(run, cfg.mode, cfg.env.image_size, procs)
    reward_fn = make_reward_func(cfg, recorder, env_timer, G, opens_thinking=prompt_opens_thinking(policy.tokenizer))

    peft_config = None
    if cfg.model.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(r=cfg.model.lora_r, lora_alpha=cfg.model.lora_alpha,
                                 target_modules=cfg.model.lora_target_modules, task_type="CAUSAL_LM")
    trackio_run = None
    if cfg.optim.trackio and procs.main:
        try:
            import trackio

            trackio_run = trackio.init(project="aquarelle", name=run.name, config=config_out["config"])
        except Exception as e:  # noqa: BLE001 - optional logging: say why and go on
            log(f"trackio disabled: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
    callback = _metrics_callback(run, recorder, env_timer, trackio_run, procs)
    try:
        trainer = GRPOTrainer(model=policy.model, reward_funcs=[reward_fn], args=grpo_args, train_dataset=ds,
                              processing_class=policy.tokenizer, environment_factory=env_cls, peft_config=peft_config,
                              callbacks=[callback, _last_step_logs()])
    except Exception:
        if resume_from is None and procs.main:
            _unstart(run)
        raise
    if resume_from:
        _quiet_tied_head_warning(policy.model)
    _resumed_progress(trainer)
    _short_unscored_warning()
    t0 = time.perf_counter()
    try:
        with _sigterm_as_interrupt():
            trainer.train(resume_from_checkpoint=resume_from)
    except (KeyboardInterrupt, Terminated):  # Ctrl-C, or SIGTERM (timeout, Slurm, docker stop): say where it stands
        if procs.main:
            last = _last_checkpoint(run)
            log(f"interrupted during step {trainer.state.global_step + 1}: "
                + (f"the last checkpoint is {last}; `aquarelle train --resume --out {run}` (with the same config) "
                   f"trains on from it" if last else
                   f"no checkpoint was written yet (every optim.save_steps = {cfg.optim.save_steps} steps), so a "
                   f"new run starts over"))
        raise
    wall = time.perf_counter() - t0
    ck = run / "checkpoint"
    trainer.save_model(str(ck))  # every process (a collective when the model is sharded); the main one writes
    if not procs.main:
        return procs.broadcast(None)  # the main process's summary, once it has written the run's last files
    _adapter_with_a_base(trainer.model, ck)
    policy.tokenizer.save_pretrained(str(ck))
    (ck / "aquarelle.json").write_text(json.dumps({"can_call_tools": cfg.mode != "sketch", "run": str(run),
                                                   "mode": cfg.mode}))
    if trackio_run is not None:
        try:
            import trackio

            trackio.finish()
        except Exception:  # noqa: BLE001
            pass
    mpath = run / "metrics.jsonl"
    lines = [json.loads(x) for x in mpath.read_text().splitlines()] if mpath.exists() else []
    # the optimizer steps trained, not the metrics lines: logging_steps above 1 writes a line every Nth step (and the
    # last) only
    # seconds: this process's training (a resumed run's: since its checkpoint, said by resumed_from)
    summary = {"run": str(run), "steps": trainer.state.global_step, "seconds": round(wall, 1),
               "resumed_from": Path(resume_from).name if resume_from else None,
               "step_time_mean": _mean([m["step_time"] for m in lines]),
               "env_time_share_mean": _mean([m["env_time_share"] for m in lines]),
               "reward_mean": _mean([m["reward"] for m in lines]), "checkpoint": str(ck)}
    (run / "summary.json").write_text(json.dumps(summary, indent=1))
    return procs.broadcast(summary)
