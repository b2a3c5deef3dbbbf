"""``WatercolourEnvironment``: one painting episode per instance, in three modes.

- ``sketch``: one ``{"sketch": js}`` action is sandboxed, rendered and scored; done.
- ``tools``: ``{"calls": [...]}`` actions paint onto a persistent canvas, each
  observation says what changed; ``{"finish": true}`` or the step budget scores it.
- ``revise``: sketch mode with ``revisions`` more rounds, each showing the image
  and the scorers' critique; the last painting's reward counts.

The cheap part (validating calls, replaying brush state) runs in the caller's
thread; rendering and scoring go through a ``Runner`` (inline, or the server's
process pool). State-only calls (``fill``, ``noStroke``...) do not re-render.
"""

from __future__ import annotations

import copy
import functools
import uuid
from dataclasses import dataclass, field
from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from aquarelle.brush import CommandError, PaintState, Program, get_space, validate
from aquarelle.brush.action_space import ActionSpace
from aquarelle.brush.commands import given_args
from aquarelle.brush.text import clip, short_repr

from .models import (MAX_EPISODE_COMMANDS, MAX_EPISODE_VALUES, MODES, SUMMARY_LEAD, WatercolourAction,
                     WatercolourObservation, WatercolourState)
from .scoring import resolve_weights
from .work import EvalRequest, EvalResult, Runner, b64, png_bytes

DEFAULT_PROMPT = "a watercolour painting"
DEFAULT_MAX_STEPS = 40
DEFAULT_REVISIONS = 2
__all__ = ["MAX_EPISODE_COMMANDS", "ResetError", "WatercolourEnvironment", "not_unicode", "not_unicode_at"]
CANVAS = 600
RESET_KEYS = ("prompt", "mode", "seed", "episode_id", "action_space", "preset", "weights", "max_steps",
              "revisions", "return_image", "image_size")
#: The longest prompt and episode id a reset takes: a painting's subject is a sentence (the prompt sets' longest is
#: ~130 characters), and both are echoed in every observation's text or metadata, the state and the judge's prompt.
MAX_PROMPT_CHARS = 2000
MAX_EPISODE_ID_CHARS = 200
#: the sizes (pixels, square) a reset's ``image_size`` may ask an episode's scored images to be rendered at
IMAGE_SIZES = (32, 2048)


@functools.lru_cache(maxsize=4)
def _blank_png_b64(width: int, height: int) -> str:
    import numpy as np

    return b64(png_bytes(np.full((height, width, 3), 255, np.uint8)))


class ResetError(ValueError):
    """A reset argument is wrong (the client's fault: the server answers it with a 4xx, not a 500)."""


def not_unicode(s: str) -> str | None:
    """Why ``s`` is not valid Unicode text (a lone UTF-16 surrogate, legal in JSON as ``"\\ud800"``), or None.

    Such text cannot be encoded as UTF-8: echoed in a reply it makes the reply unserialisable."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"a lone UTF-16 surrogate (\\u{ord(s[e.start]):04x}) at character {e.start}"
    return None


def _escape_surrogates(s: str) -> str:
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass
class Episode:
    mode: str
    prompt: str
    seed: int
    space: ActionSpace
    space_spec: Any
    weights: Any
    max_steps: int
    revisions_left: int
    image_mode: str  # "all" (every observation), "final" (the scored one, and revise rounds), "none"
    episode_id: str
    render_size: int | None = None  # the scored image's size (None: the program's own canvas)
    step_size: int | None = None    # tools-step images' size
    step_count: int = 0
    done: bool = False
    state: PaintState = field(default_factory=PaintState)
    commands: list = field(default_factory=list)
    values: int = 0  # numbers the commands' arguments hold (MAX_EPISODE_VALUES)
    coverage: float = 0.0
    png_b64: str | None = None
    reward: float | None = None
    breakdown: dict = field(default_factory=dict)
    weights_used: dict = field(default_factory=dict)
    # the judge's verdicts that flipped with the order of the pair, over its pairs (references): its position bias
    judge_position_bias: int | None = None
    judge_pairs: int | None = None
    program: dict | None = None
    source: str | None = None

    @property
    def steps_left(self) -> int:
        return max(self.max_steps - self.step_count, 0)

    def program_obj(self) -> Program:
        return Program(seed=self.seed, commands=list(self.commands), width=CANVAS, height=CANVAS)


def is_image_size(size: object) -> bool:
    """Whether ``size`` is an integer in ``IMAGE_SIZES`` (not a bool): a reset's ``image_size``, a server's sizes."""
    return not isinstance(size, bool) and isinstance(size, int) and IMAGE_SIZES[0] <= size <= IMAGE_SIZES[1]


def check_image_sizes(**sizes: object) -> None:
    """An environment's own image sizes are bounded as a reset's ``image_size`` is (``IMAGE_SIZES``), or None:
    unbounded, a render size of 10^6 asked the renderer for terabytes and the kernel killed the process."""
    lo, hi = IMAGE_SIZES
    for name, size in sizes.items():
        if size is not None and not is_image_size(size):
            raise ValueError(f"{name} must be an integer from {lo} to {hi} (pixels) or None, got {short_repr(size)}")


class WatercolourEnvironment(Environment[WatercolourAction, WatercolourObservation, WatercolourState]):
    """A watercolour painting episode (see the module docstring for the modes)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, runner: Runner | None = None, *, render_size: int | None = None,
                 step_render_size: int | None = None):
        """``render_size`` is the size episodes are rendered and scored at unless their reset gives ``image_size``
        (None: the program's own canvas, 600). ``step_render_size`` resamples tools-mode step images smaller
        (smaller PNGs, coverage approximate), never larger than the episode's scored image; the score never."""
        check_image_sizes(render_size=render_size, step_render_size=step_render_size)
        super().__init__()
        self._runner = runner if runner is not None else Runner(0)
        self._render_size = render_size
        self._step_render_size = step_render_size
        self._ep: Episode | None = None
        self._closed = False

    # ------------------------------------------------------------------ OpenEnv API

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> WatercolourObservation:
        """Start an episode; keywords exactly as issue 5 names them."""
        self._check_open()
        unknown = sorted(set(kwargs) - set(RESET_KEYS))
        if unknown:
            raise ResetError(_clip(f"reset: unknown keyword(s) {', '.join(_clip(k, 40) for k in unknown)} "
                                   f"(known: {', '.join(RESET_KEYS)})", 400))
        mode = kwargs.get("mode")
        if mode is None:
            mode = "tools"
        if not isinstance(mode, str) or mode not in MODES:  # 0, false and "" were tools mode
            raise ResetError(f"reset: mode must be one of {', '.join(MODES)}, got {short_repr(mode)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ResetError(f"reset: seed must be an integer, got {short_repr(seed)}")
        if episode_id is not None and not isinstance(episode_id, str):
            raise ResetError(f"reset: episode_id must be a string, got {type(episode_id).__name__} "
                             f"{short_repr(episode_id)}")
        spec = kwargs.get("action_space")
        if spec is None:
            spec = "hf10"
        elif not isinstance(spec, str) and not (isinstance(spec, (list, tuple))
                                                and all(isinstance(m, str) for m in spec)):
            raise ResetError(f"reset: action_space must be a name or a list of method names, got {short_repr(spec)}")
        elif not spec:
            raise ResetError("reset: action_space is empty (give a name like 'hf10' or a list of method names)")
        try:
            space = get_space(spec)
        except CommandError as e:
            raise ResetError(_clip(f"reset: action_space: {e}")) from None
        preset, weights = kwargs.get("preset"), kwargs.get("weights")
        if preset is not None and weights is not None:
            raise ResetError("reset: give either preset or weights, not both")
        # a list or object preset was `unhashable type: 'list'` (HTTP: a bare 500); empty weights ([]) passed unread
        if preset is not None and not isinstance(preset, str):
            raise ResetError(f"reset: preset must be a preset name (judge-led, hps-led, hps-only), got "
                             f"{type(preset).__name__} {short_repr(preset)}")
        if weights is not None and not isinstance(weights, dict):
            raise ResetError(f"reset: weights must be a mapping of gate, length, judge, preference, got "
                             f"{type(weights).__name__} {short_repr(weights)}")
        try:
            w = resolve_weights(preset, weights, self._runner.reward_config) if (preset or weights) else None
        except ValueError as e:
            raise ResetError(_clip(f"reset: {e}")) from None
        max_steps = _positive("max_steps", kwargs.get("max_steps"), {"sketch": 1, "revise": 1}.get(mode, DEFAULT_MAX_STEPS))
        revisions = _positive("revisions", kwargs.get("revisions"), DEFAULT_REVISIONS, allow_zero=True)
        if mode == "sketch":
            max_steps, revisions = 1, 0
        elif mode == "revise":
            max_steps = revisions + 1
        ret = kwargs.get("return_image")
        if ret is not None and not isinstance(ret, bool):
            raise ResetError(f"reset: return_image must be true (every observation) or false (none), or omitted "
                             f"(the scored image only), got {short_repr(ret)}")
        size = kwargs.get("image_size")
        lo, hi = IMAGE_SIZES
        if size is not None and not is_image_size(size):
            raise ResetError(f"reset: image_size must be an integer from {lo} to {hi} (pixels), or omitted (the "
                             f"environment's own), got {short_repr(size)}")
        render_size = size if size is not None else self._render_size
        step_size = self._step_render_size or render_size  # tools-step images: the server's step size if smaller
        if render_size is not None and step_size is not None:
            step_size = min(step_size, render_size)
        prompt = kwargs.get("prompt")
        if prompt is None or prompt == "":
            prompt = DEFAULT_PROMPT
        if not isinstance(prompt, str):  # 0 and false were the default prompt
            raise ResetError(f"reset: prompt must be a string, got {type(prompt).__name__}")
        for name, text, most in (("prompt", prompt, MAX_PROMPT_CHARS),
                                 ("episode_id", episode_id, MAX_EPISODE_ID_CHARS)):
            if text is not None and len(text) > most:  # each is echoed in every observation, state and log line
                raise ResetError(f"reset: {name} has at most {most} characters, got {len(text)}")
            why = not_unicode(text) if text is not None else None
            if why:
                raise ResetError(f"reset: {name} is not valid Unicode text: {why}")
        self._ep = ep = Episode(
            mode=mode, prompt=prompt, seed=int(seed or 0), space=space,
            space_spec=spec if isinstance(spec, str) else list(spec), weights=w, max_steps=max_steps,
            revisions_left=revisions, image_mode="final" if ret is None else ("all" if ret else "none"),
            episode_id=episode_id or uuid.uuid4().hex, render_size=render_size, step_size=step_size,
        )
        if ep.image_mode == "all":  # the blank canvas, at the size the next image comes at
            blank = (ep.step_size if mode == "tools" else ep.render_size) or CANVAS
            ep.png_b64 = _blank_png_b64(blank, blank)
        return self._obs(_task_text(ep), image=ep.png_b64)

    def step(self, action: WatercolourAction, timeout_s: float | None = None, **kwargs: Any) -> WatercolourObservation:
        """Apply one action; heavy work goes through the runner."""
        self._check_open()
        if isinstance(action, dict):
            action = WatercolourAction(**action)
        ep = self._ep
        if ep is None:
            return self._obs("No episode: call reset first.", errors=["step before reset: call reset first"], done=True)
        if ep.done:
            return self._obs("The episode is over: call reset to start another.",
                             errors=["episode is over: call reset"], done=True, reward=ep.reward)
        if ep.mode == "tools":
            return self._step_tools(ep, action)
        return self._step_sketch(ep, action)

    @property
    def state(self) -> WatercolourState:
        """The episode; a closed session (reaped for idleness) says so, as step and reset do, rather than
        answering an empty default state."""
        self._check_open()
        ep = self._ep
        if ep is None:
            return WatercolourState()
        return WatercolourState(
            episode_id=ep.episode_id, step_count=ep.step_count, mode=ep.mode, prompt=ep.prompt,
            action_space=ep.space.name, seed=ep.seed, max_steps=ep.max_steps, steps_left=ep.steps_left,
            revisions_left=ep.revisions_left, done=ep.done, coverage=ep.coverage, reward=ep.reward,
            breakdown=ep.breakdown, weights=ep.weights_used, n_calls=len(ep.commands),
            judge_position_bias=ep.judge_position_bias, judge_pairs=ep.judge_pairs,
            program=ep.program if ep.mode != "tools" else ep.program_obj().to_json(), source=ep.source,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="aquarelle", version="0.1.0",
            description="Paint watercolours with p5.brush: a whole sketch, brush tool calls, or sketch + revisions.",
        )

    def close(self) -> None:
        """Called by the server when the session ends or is reaped for idleness."""
        self._closed = True
        self._ep = None

    # ------------------------------------------------------------------ tools mode

    def _step_tools(self, ep: Episode, action: WatercolourAction) -> WatercolourObservation:
        if action.finish:
            return self._finish(ep, "Finished.")
        if action.calls is None:
            return self._obs("Tools mode takes {\"calls\": [...]} or {\"finish\": true}.",
                             errors=["tools mode: send calls or finish, not a sketch"], image=self._img(ep))
        bad = _calls_not_unicode(action.calls)
        if bad:  # refused before it costs a step: echoed, such text would make the reply unserialisable
            return self._obs(f"Not applied (no step used): {bad}.", errors=[bad], image=self._img(ep))
        ep.step_count += 1
        state = copy.deepcopy(ep.state)
        new, drew, warnings = [], [], []
        values = ep.values
        try:
            if len(ep.commands) + len(action.calls) > MAX_EPISODE_COMMANDS:
                raise CommandError(f"an episode may hold at most {MAX_EPISODE_COMMANDS} calls")
            for i, call in enumerate(action.calls):
                try:
                    if call.method == "frame":  # the sandbox's record of a sketch's rotate/scale, not a brush call
                        raise CommandError("frame is not a tool: a tool call's coordinates are the canvas's")
                    ep.space.check(call.method)
                    cmd = validate(call.method, call.args)
                    values += _count_values(cmd.args)
                    if values > MAX_EPISODE_VALUES:
                        raise CommandError(f"an episode's calls may hold at most {MAX_EPISODE_VALUES} numbers in "
                                           f"all (points, field and tip cells), this call brings it to {values}")
                    op = state.apply(cmd)
                except CommandError as e:
                    raise CommandError(f"call {i + 1}: {e}" if len(action.calls) > 1 else str(e)) from None
                new.append(cmd)
                if op is not None:
                    drew.append(cmd)
                    if cmd.method != "background" and not op.state.paints():
                        warnings.append(f"{cmd.method} painted nothing: no fill, stroke, hatch, wash or mass is on")
                    elif (box := _extent(op)) is not None and _off_canvas(box):
                        warnings.append(f"{cmd.method} lies off the {CANVAS}x{CANVAS} canvas (it spans x "
                                        f"{box[0]:g} to {box[2]:g}, y {box[1]:g} to {box[3]:g}): little or none of it shows")
        except CommandError as e:
            return self._after_call(ep, f"Not applied: {e}.", errors=[str(e)])
        prev_cov = ep.coverage
        want = ep.image_mode == "all"
        if drew or (want and ep.png_b64 is None):
            res = self._runner.evaluate(EvalRequest(
                mode="tools", program=Program(seed=ep.seed, commands=ep.commands + new, width=CANVAS,
                                              height=CANVAS).to_json(),
                seed=ep.seed, want_png=want, size=ep.step_size, episode=ep.episode_id, since=len(ep.commands)))
            if res.infra_error:  # ours, not the policy's: the step is not used up
                ep.step_count -= 1
                return self._after_call(ep, f"Not applied (no step used): the renderer failed ({res.infra_error}).",
                                        errors=[f"infrastructure: {res.infra_error}"])
            if res.render_error:
                return self._after_call(ep, f"Not applied: {res.render_error}.", errors=[res.render_error])
            ep.coverage = res.coverage or 0.0
            if res.png is not None:
                ep.png_b64 = b64(res.png)
            if drew and res.changed is False and not warnings:
                # coverage cannot say it (a shape over painted ground adds none): a circle enclosing the canvas,
                # an arc of 360 degrees or a 0 x 0 rect paints nothing, in p5.brush too
                warnings.append(f"{drew[0].method} changed no pixel" if len(drew) == 1 else
                                f"these {len(drew)} calls changed no pixel")
        ep.state, ep.commands, ep.values = state, ep.commands + new, values
        if not new:
            head = "Looked at the canvas (no calls)."
        elif drew:
            head = f"Painted {_calls_text(drew)}" + (f" with {len(new) - len(drew)} setting call(s)" if len(new) > len(drew) else "") + "."
        else:
            # a setting paints nothing itself; "nothing painted yet" was said after shapes had painted 9%
            head = f"Set {_calls_text(new)}" + (" (nothing painted yet)." if ep.coverage == 0.0 else ".")
        delta = ep.coverage - prev_cov
        cov = f"Coverage {ep.coverage:.1%}" + (f" ({delta * 100:+.1f} pts)" if drew else "") + "."
        return self._after_call(ep, f"{head} {cov}", warnings=warnings)

    def _after_call(self, ep: Episode, text: str, errors: list[str] | None = None,
                    warnings: list[str] | None = None) -> WatercolourObservation:
        """Report a tools step; the budget running out scores the painting.

        Most telling first: what happened, the steps left (or the reward), warnings, and last the summary of the
        painting so far, which the policy can best do without. A trainer caps each tool result
        (``env.observation_chars``, 120 by default): with the summary before them, every warning and the steps
        left were cut off, and with a warning before them (an off-canvas circle, every step of an open shape)
        the steps left were."""
        if ep.state.shape is not None:
            (warnings := warnings or []).append(f"a shape is open ({len(ep.state.shape.vertices)} vertices): endShape paints it")
        warned = ["Warning: " + "; ".join(warnings) + "."] if warnings else []
        if ep.steps_left == 0:
            return self._finish(ep, " ".join([text, "No steps left."] + warned), errors=errors)  # then the reward
        parts = [text, steps_left_text(ep.steps_left)] + warned + [_so_far(ep)]
        return self._obs(" ".join(parts), errors=errors or [], image=self._img(ep))

    def _finish(self, ep: Episode, text: str, errors: list[str] | None = None) -> WatercolourObservation:
        prog = ep.program_obj()
        ep.program = prog.to_json()
        warn = ""
        if ep.state.shape is not None:
            warn = " An open shape (no endShape) was not painted."
        res = self._runner.evaluate(EvalRequest(
            mode="tools", program=ep.program, action_space=ep.space_spec, seed=ep.seed, score=True,
            want_png=ep.image_mode != "none", size=ep.render_size, episode=ep.episode_id, forget=True,
            weights=_dump(ep.weights), prompt=ep.prompt, n_calls=len(ep.commands)))
        if res.coverage is not None:
            ep.coverage = res.coverage
        if res.png is not None:
            ep.png_b64 = b64(res.png)
        return self._final(ep, res, text + warn, errors=list(errors or []))

    # ------------------------------------------------------------------ sketch and revise

    def _step_sketch(self, ep: Episode, action: WatercolourAction) -> WatercolourObservation:
        if action.finish:
            if ep.program is None and ep.source is None:
                res = self._runner.evaluate(EvalRequest(
                    mode=ep.mode, program=ep.program_obj().to_json(), action_space=ep.space_spec, seed=ep.seed,
                    score=True,
                    want_png=ep.image_mode != "none", size=ep.render_size, weights=_dump(ep.weights), prompt=ep.prompt, n_calls=0))
                return self._final(ep, res, "Finished without a sketch.")
            ep.done = True
            return self._obs(f"Finished. The last painting's reward counts: {_fmt(ep.reward)}.",
                             reward=ep.reward, done=True, image=self._img(ep, final=True), breakdown=ep.breakdown)
        if action.sketch is None:
            return self._obs(f"{ep.mode} mode takes {{\"sketch\": \"<p5.brush js>\"}}"
                             + (" or {\"finish\": true}." if ep.mode == "revise" else "."),
                             errors=[f"{ep.mode} mode: send a sketch"], image=self._img(ep))
        ep.step_count += 1
        source, why = action.sketch, not_unicode(action.sketch)
        if why:  # the model's fault (a gate 0 with the reason); kept escaped so state and replies still serialise
            source = _escape_surrogates(source)
        ep.source = source
        res = self._runner.evaluate(EvalRequest(
            mode=ep.mode, source=source, action_space=ep.space_spec, seed=ep.seed, score=True,
            want_png=ep.image_mode != "none", size=ep.render_size, weights=_dump(ep.weights), prompt=ep.prompt,
            fault=f"the sketch is not valid Unicode text: {why}" if why else None))
        ep.program = res.program
        ep.commands = Program.from_json(res.program).commands if res.program else []
        ep.coverage = res.coverage or 0.0
        ep.png_b64 = b64(res.png) if res.png is not None else None
        if ep.mode == "revise" and ep.revisions_left > 0 and not res.infra_error:
            ep.revisions_left -= 1
            self._record(ep, res)
            # the score and what may come next first: a trainer caps a tool result, and the critique is the longest
            text = (f"Score {_fmt(ep.reward)}. {revise_text(ep.revisions_left)} {_sketch_text(ep, res)} "
                    f"Critique: {_critique(res).rstrip('.')}.")
            return self._obs(text, errors=_errors(res), image=self._img(ep, final=True), breakdown=ep.breakdown)
        return self._final(ep, res, _sketch_text(ep, res))

    # ------------------------------------------------------------------ shared

    def _record(self, ep: Episode, res: EvalResult) -> None:
        r = res.reward or {}
        ep.reward = None if res.infra_error else r.get("reward")
        ep.breakdown = dict(r.get("breakdown") or {})
        ep.weights_used = dict(r.get("weights") or {})
        judged = ep.breakdown.get("judge") is not None
        ep.judge_position_bias = int(r.get("judge_position_bias") or 0) if judged else None
        ep.judge_pairs = len(r.get("references") or []) if judged else None

    def _final(self, ep: Episode, res: EvalResult, text: str, errors: list[str] | None = None) -> WatercolourObservation:
        ep.done = True
        self._record(ep, res)
        errs = list(errors or []) + _errors(res)
        r = res.reward or {}
        if res.infra_error or r.get("error"):
            text += f" No reward: {res.infra_error or r.get('error')}."
        else:
            text += f" Reward {_fmt(ep.reward)} ({_breakdown_text(ep.breakdown)})."
            if r.get("critique"):
                text += f" {r['critique']}"
        return self._obs(text, errors=errs, reward=ep.reward, done=True, image=self._img(ep, final=True),
                         breakdown=ep.breakdown)

    def _img(self, ep: Episode, final: bool = False) -> str | None:
        """The image goes out on every observation ("all") or on scored ones ("final")."""
        if ep.image_mode == "all" or (final and ep.image_mode == "final"):
            return ep.png_b64
        return None

    def _obs(self, text: str, *, errors: list[str] | None = None, reward: float | None = None, done: bool = False,
             image: str | None = None, breakdown: dict | None = None) -> WatercolourObservation:
        ep = self._ep
        meta: dict[str, Any] = {}
        if ep is not None:
            meta = {"mode": ep.mode, "episode_id": ep.episode_id, "step": ep.step_count, "steps_left": ep.steps_left,
                    "n_calls": len(ep.commands)}
            if ep.mode == "revise":
                meta["revisions_left"] = ep.revisions_left
        return WatercolourObservation(
            text=text, reward=reward, done=done, coverage=ep.coverage if ep else 0.0, errors=list(errors or []),
            breakdown=dict(breakdown or {}), image_png_b64=image, metadata=meta,
        )

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this session was closed (idle timeout or shutdown): reconnect and reset")


# ---------------------------------------------------------------------- text helpers


def _positive(name: str, v: Any, default: int, allow_zero: bool = False) -> int:
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or v < (0 if allow_zero else 1) or v > 10_000:
        raise ResetError(f"reset: {name} must be an integer {'>= 0' if allow_zero else '>= 1'} (<= 10000), "
                         f"got {short_repr(v)}")
    return v


def not_unicode_at(value: Any, path: str, skip: Any = None) -> str | None:
    """``"PATH is not valid Unicode text: why"`` for the first string or key in ``value`` (at any depth) that is
    not valid Unicode, or None. ``skip``, one string object, is left to whoever owns it."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, v = stack.pop()
        if isinstance(v, str):
            why = not_unicode(v) if v is not skip else None
            if why:
                return f"{where} is not valid Unicode text: {why}"
        elif isinstance(v, dict):
            for k, x in v.items():
                why = not_unicode(k) if isinstance(k, str) else None
                if why:
                    return f"a key in {where} is not valid Unicode text: {why}"
                stack.append((f"{where}.{k}", x))
        elif isinstance(v, (list, tuple)):
            stack.extend((f"{where}[{i}]", x) for i, x in enumerate(v))
    return None


def _count_values(v: Any) -> int:
    """The numbers and strings in a validated call's arguments (nested lists and option objects counted through)."""
    if isinstance(v, (list, tuple)):
        return sum(_count_values(x) for x in v)
    if isinstance(v, dict):
        return sum(_count_values(x) for x in v.values())
    return 1


def _calls_not_unicode(calls: list) -> str | None:
    """The first call whose method or a string argument (at any depth) is not valid Unicode text, as one line."""
    for i, call in enumerate(calls):
        where = f"call {i + 1}: " if len(calls) > 1 else ""
        bad = (not_unicode_at(call.method, f"{where}the method name")
               or not_unicode_at(call.args, f"{where}{_clip(call.method, 64)} args"))
        if bad:
            return bad
    return None


def _clip(text: str, limit: int = 300) -> str:
    return clip(_escape_surrogates(text), limit)


def _dump(w: Any) -> dict | None:
    return None if w is None else w.as_dict()


def _fmt(x: float | None) -> str:
    return "none" if x is None else f"{x:.3f}"


def _breakdown_text(b: dict) -> str:
    return ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in b.items()) or "no terms"


def _arg(a: Any) -> str:
    """An argument as the policy writes it in p5.brush code (``true``, ``null``), not as Python prints it."""
    if isinstance(a, bool):
        return "true" if a else "false"
    if a is None:
        return "null"
    if isinstance(a, float):
        return f"{a:g}"
    if isinstance(a, list):
        return f"[{len(a)} items]" if len(a) > 3 else "[" + ", ".join(_arg(x) for x in a) + "]"
    return str(a)


def _extent(op) -> tuple[float, float, float, float] | None:
    """The box a shape's own geometry spans (before bleed or stroke width), or None for a call without one."""
    m, a = op.command.method, op.command.args
    if m == "circle":
        return a[0] - a[2], a[1] - a[2], a[0] + a[2], a[1] + a[2]
    if m == "rect":
        x, y = (a[0] - a[2] / 2, a[1] - a[3] / 2) if len(a) > 4 and a[4] == "center" else (a[0], a[1])
        return x, y, x + a[2], y + a[3]
    if m == "line":
        return min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    pts = op.geometry.get("vertices") if m == "endShape" else a[0] if m in ("polygon", "spline") else None
    if not pts:
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _off_canvas(box: tuple[float, float, float, float]) -> bool:
    """Whether the box misses the canvas, so a policy is told why its shape added no coverage (it painted circles at
    x 720 or y 980 and was told only "Coverage 0.0%")."""
    x0, y0, x1, y1 = box
    return x1 < 0 or y1 < 0 or x0 > CANVAS or y0 > CANVAS


def _calls_text(cmds: list) -> str:
    # (``fillBleed(0.5, out)``, not ``fillBleed(0.5, out, None)``)
    shown = [f"{c.method}({', '.join(_arg(a) for a in given_args(c.args))})" for c in cmds[:3]]
    return ", ".join(shown) + (f" and {len(cmds) - 3} more" if len(cmds) > 3 else "")


def _so_far(ep: Episode) -> str:
    s = ep.program_obj().summary()
    cols = s["colours"]
    fill = ep.state.fill
    now = f"fill {fill.color} opacity {fill.opacity:g}" if fill.active else "no fill"
    return (f"{SUMMARY_LEAD}{s['shapes']} shape(s), {len(cols)} colour(s)"
            + (f" ({', '.join(cols[:6])}{'...' if len(cols) > 6 else ''})" if cols else "") + f"; {now}.")


def steps_left_text(steps_left: int) -> str:
    """What a tools step says of its budget (public: the tool class ends a refused call's error with it)."""
    return f"{steps_left} step{'' if steps_left == 1 else 's'} left."


def revise_text(revisions_left: int) -> str:
    """What a revise result says may come next (public: the tool class ends a refused sketch's error with it)."""
    return f"Revise: send a new sketch ({revisions_left + 1} more allowed) or finish."


def _task_text(ep: Episode) -> str:
    return task_text(ep.mode, sorted(ep.space.methods), max_steps=ep.max_steps, revisions=ep.revisions_left,
                     prompt=ep.prompt)


def task_text(mode: str, methods: list[str], *, max_steps: int, revisions: int, prompt: str | None = None) -> str:
    """What a reset tells the policy: the subject (``prompt``; None when the caller's own message names it), the
    canvas, the ``methods`` it may use and the budget. Public so a trainer that offers other tools than the
    space's methods (the compact ``shape`` for beginShape/vertex/endShape) lists what the policy really has."""
    listed = ", ".join(methods) if len(methods) <= 12 else f"{len(methods)} " + ("tools" if mode == "tools" else
                                                                                 "p5.brush methods")
    if mode == "tools":
        frame = "(0,0) top-left, angles in degrees"
    else:  # a sketch gets that frame only from the skeleton (WEBGL's origin is the centre, p5's angles radians)
        frame = "translate(-width/2, -height/2) puts (0,0) top-left, angleMode(DEGREES) makes angles degrees"
    base = (f"Paint: {prompt}. " if prompt is not None else "") + f"Canvas {CANVAS}x{CANVAS}, {frame}. Methods: {listed}."
    if mode == "tools":
        return (f"{base} Call brush tools one step at a time; {max_steps} steps at most (the last one scores the "
                "painting), or call finish when it is done.")
    if mode == "revise":
        return (f"{base} Write one p5.brush sketch; you will get its score and a critique, and may revise "
                f"{revisions} time(s).")
    return f"{base} Write one whole p5.brush sketch."


def _sketch_text(ep: Episode, res: EvalResult) -> str:
    if res.fault:
        return f"Rejected: {res.fault}."
    if res.infra_error:
        return "Could not evaluate the sketch."
    s = ep.program_obj().summary()
    return (f"Rendered {s['commands']} call(s): {s['shapes']} shape(s), {len(s['colours'])} colour(s). "
            f"Coverage {ep.coverage:.1%}.")


def _critique(res: EvalResult) -> str:
    r = res.reward or {}
    if r.get("critique"):
        return r["critique"]
    if res.fault:
        return f"Fix: {res.fault}"
    return "none."


def _errors(res: EvalResult) -> list[str]:
    out = []
    if res.sketch_error:
        out.append(res.sketch_error)
    out.extend(res.violations)
    if res.render_error:
        out.append(res.render_error)
    if res.infra_error:
        out.append(f"infrastructure: {res.infra_error}")
    elif res.reward and res.reward.get("error"):
        out.append(f"infrastructure: {res.reward['error']}")
    return out
