"""The TRL tool class: ``GRPOTrainer(environment_factory=PaintingToolEnv)``.

TRL builds one instance per rollout with no arguments and turns every public
method except ``reset``/``get_reward`` into a tool (type hints + Google-style
docstring). So ``make_tool_env(...)`` returns a *class* whose public methods are
exactly the episode's tools: the action space's brush methods (generated from
``aquarelle.brush.SPECS``), ``shape(points, curvature)`` (one petal, one call,
expanding to beginShape/vertex/endShape so it stays in ``hf10``) and ``finish``;
sketch and revise modes get ``submit_sketch(code)`` instead of brush tools.

A tool whose call the environment rejects raises ``ToolError`` so TRL shows the
model ``{'error': ...}`` and counts it. After an episode the instance keeps
``reward``, ``breakdown``, ``program``, ``image_png``, ``coverage`` for reward
functions (reading ``reward`` scores an unfinished painting first). The episode
runs in-process by default, or on one or more servers (round-robin; a dropped
connection is reopened and the episode replayed).
"""

from __future__ import annotations

import base64
import itertools
import math
import threading
from typing import Any, Iterable

from . import say

__all__ = ["PaintingToolEnv", "ToolError", "make_tool_env", "tool_names"]


class ToolError(ValueError):
    """A tool call the environment rejected; TRL passes the message to the model."""


class EnvUnreachable(ToolError):
    """The environment server stayed away past the reconnect window: the episode's reward is None (infrastructure),
    and nothing more is asked of that episode."""


#: Refused calls an episode keeps for its record (a policy stuck refusing every call fills its steps with them).
MAX_REFUSALS_KEPT = 20


# --------------------------------------------------------------------------- parameter types for generated tools

_PY_TYPE = {
    "pos": "float", "num": "float", "unit": "float", "unit2": "float", "opacity": "float", "coord": "float",
    "length": "float", "radius": "float", "angle": "float", "irregularity": "float", "seed": "int",
    "color": "str", "name": "str", "direction": "str", "stroketype": "str", "rectmode": "str", "bool": "bool",
    "close": "bool",
    "angle|null": "float | None", "points": "list[list[float]]", "polygons": "list[list[list[float]]]",
    "region": "list[float]", "hatchopts": "dict", "massopts": "dict", "brushparams": "dict", "grid": "list[list[float]]",
}
_DESC = {
    "pos": "a positive number", "num": "a number", "unit": "a number from 0 to 1", "unit2": "pressure, 0 to 2",
    "opacity": "opacity from 0 to 255", "coord": "pixels on the 600x600 canvas, (0,0) top-left",
    "length": "a length in pixels", "radius": "radius in pixels",
    "angle": "degrees, counter-clockwise on screen (0 points right, 90 up)", "irregularity":
    "0 for a clean circle, more for a hand-drawn one, -10 to 10", "seed": "an integer seed",
    "color": 'a colour: "#rrggbb" hex or a CSS name', "name": "a name", "direction": '"out" or "in"',
    "stroketype": '"curve" or "segments"', "rectmode": '"corner" or "center"', "bool": "true or false",
    "close": "true or false",
    "angle|null": "degrees, or null for none", "points": "a list of [x, y] points",
    "polygons": "a list of polygons, each a list of [x, y] points", "region": "[x1, y1, x2, y2]",
    "hatchopts": "options {rand, continuous, gradient}", "massopts": "options {precision, strength, gradient, outline}",
    "brushparams": "brush parameters {type, weight (up to 1000), ...}", "grid": "a grid of angles in degrees",
}


def _tool_source(spec: Any) -> str:
    params, args, docs = [], [], []
    for p in spec.params:
        from aquarelle.brush.commands import REQUIRED

        t = _PY_TYPE.get(p.kind, "float")
        if p.default is REQUIRED:
            params.append(f"{p.name}: {t}")
        else:
            d = p.default if isinstance(p.default, (int, float, str, bool)) or p.default is None else None
            params.append(f"{p.name}: {t} | None = {d!r}" if d is None and "None" not in t else f"{p.name}: {t} = {d!r}")
        args.append(p.name)
        docs.append(f"            {p.name}: {p.doc or _DESC.get(p.kind, p.kind)}{_default_text(p)}.")
    sig = ", ".join(["self"] + params)
    doc = spec.doc.rstrip(".") + "." if spec.doc else f"p5.brush {spec.name}."
    body_doc = f'"""{doc}\n\n        Args:\n' + "\n".join(docs) + '\n        """' if docs else f'"""{doc}"""'
    return (f"def {spec.name}({sig}) -> str:\n        {body_doc}\n"
            f"        return self._call({spec.name!r}, [{', '.join(args)}])\n")


def _default_text(p: Any) -> str:
    """The default a tool's parameter takes when left out, said in its description: TRL's JSON schema marks a
    parameter optional but carries no default, so a bare ``fillTexture()`` lowered the texture unseen."""
    from aquarelle.brush.commands import REQUIRED

    d = p.default
    if d is REQUIRED or not isinstance(d, (int, float, str, bool)) or "default" in p.doc:  # (None: no default)
        return ""
    shown = ("true" if d else "false") if isinstance(d, bool) else (f'"{d}"' if isinstance(d, str) else f"{d:g}")
    return f" (default {shown})"


def _make_brush_tool(spec: Any) -> Any:
    ns: dict[str, Any] = {}
    exec(_tool_source(spec).replace("\n    ", "\n"), ns)  # noqa: S102 - source built from our own SPECS table
    return ns[spec.name]


# --------------------------------------------------------------------------- fixed tools


def shape(self, points: list[list[float]], curvature: float = 0.5, close: bool = True) -> str:
    """Paint one shape through the points with the current fill (beginShape, vertex..., endShape).

    Args:
        points: The outline as a list of [x, y] pixel points (2 or more; 3 or more to enclose an area), (0,0) top-left of the 600x600 canvas.
        curvature: How rounded the outline is, from 0 (straight edges) to 1.
        close: Whether to close the outline back to the first point.
    """
    try:
        calls = _shape_calls(points, curvature, close)
    except ToolError as e:
        raise self._refused(str(e)) from None  # refused here, before the environment: still the policy's error
    return self._step({"calls": calls})


def _shape_calls(points: Any, curvature: Any, close: Any) -> list[dict]:
    """The calls ``shape`` expands to, each checked as the environment will check it."""
    if not isinstance(points, list) or len(points) < 2:
        raise ToolError("shape: points must be a list of at least 2 [x, y] points")
    if len(points) > _max_shape_points():
        raise ToolError(f"shape: at most {_max_shape_points()} points, got {len(points)}")
    _check("curvature", "beginShape", [curvature])
    calls = [{"method": "beginShape", "args": [curvature]}]
    for i, p in enumerate(points):
        if not isinstance(p, (list, tuple)) or len(p) not in (2, 3):
            raise ToolError(f"shape: points[{i}] must be [x, y], got {str(p)[:40]}")
        _check(f"points[{i}]", "vertex", list(p))
        calls.append({"method": "vertex", "args": list(p)})
    _check("close", "endShape", [close])
    calls.append({"method": "endShape", "args": [close]})  # not bool(): "false" closed the shape
    return calls


def _max_shape_points() -> int:
    """The most points one ``shape`` call takes: an action (and an episode) holds at most MAX_EPISODE_COMMANDS
    calls, two of them beginShape and endShape."""
    from aquarelle.env.models import MAX_EPISODE_COMMANDS

    return MAX_EPISODE_COMMANDS - 2


def _check(what: str, method: str, args: list) -> None:
    """``args`` of one call ``shape`` expands to, checked as the environment will check them, the error naming the
    tool's own parameter (the policy called shape(points, curvature, close), never vertex or endShape)."""
    from aquarelle.brush.commands import CommandError, validate

    try:
        validate(method, args)
    except CommandError as e:
        why = str(e).split(": ", 1)[-1] if str(e).startswith(f"{method}: ") else str(e)
        raise ToolError(f"shape: {why}" if why.startswith(f"{what} ") else f"shape: {what}: {why}") from None


def finish(self) -> str:
    """Finish the painting now and get its score. Call it once, when the painting is done."""
    return self._step({"finish": True})


def submit_sketch(self, code: str) -> str:
    """Submit a whole p5.brush sketch; it is run, rendered and scored.

    Args:
        code: The complete p5.brush JavaScript sketch: setup() creates a 600x600 WEBGL canvas and sets angleMode(DEGREES); draw() translates by (-width/2, -height/2), then makes the brush calls.
    """
    from .completion import extract_sketch

    if not isinstance(code, str) or not code.strip():
        raise self._refused("submit_sketch: code must be a non-empty string")
    # read as a sketch-mode answer is: a coding model fences its code (```js ...```), even in a tool argument
    code = extract_sketch(code) if "```" in code or "<script" in code.lower() or "<think>" in code else code
    if not code.strip():
        raise self._refused("submit_sketch: code holds no sketch (an empty fenced block)")
    return self._step({"sketch": code})


# --------------------------------------------------------------------------- backends


def _action_problem(action: dict) -> str | None:
    """Why the environment's action model refuses ``action`` (its first error's line), or None."""
    from pydantic import ValidationError

    from aquarelle.env.models import WatercolourAction

    try:
        WatercolourAction(**action)
    except ValidationError as e:
        return str(e.errors()[0]["msg"]).splitlines()[0]
    return None


class _LocalBackend:
    """The environment in this process (TRL's embedded default)."""

    def __init__(self, reward_config: dict | None = None) -> None:
        from aquarelle.env.environment import WatercolourEnvironment
        from aquarelle.env.work import Runner

        # no render_size: the episode's size comes with its reset (``image_size``), as it does to a server
        self.env = WatercolourEnvironment(Runner(0, reward_config=reward_config))

    def reset(self, **kw: Any) -> Any:
        return self.env.reset(**kw)

    def step(self, action: dict) -> Any:
        from aquarelle.env.models import WatercolourAction

        return self.env.step(WatercolourAction(**action))

    def close(self) -> None:
        self.env.close()


class _RemoteBackend:
    """One WebSocket session on one of ``urls`` (round-robin); reconnects and replays when it drops."""

    _counter = itertools.count()
    _lock = threading.Lock()
    #: when a backend last gave up on a set of servers (monotonic s), and the outages already said on stderr: the
    #: G rollouts of a step each waited the whole window, one after another (G x 3 min), without a word
    _gave_up: dict[tuple[str, ...], float] = {}
    _announced: set[tuple[str, ...]] = set()

    def __init__(self, urls: list[str], retries: int = 3, reconnect_s: float = 180.0) -> None:
        # A server restart takes seconds to tens of seconds: keep trying (with a backoff) for
        # ``reconnect_s`` rather than failing reset/finish, which would stop the trainer.
        self.urls, self.retries, self.reconnect_s = urls, retries, reconnect_s
        self.client: Any = None
        self.tried: set[str] = set()  # the servers one ``_with_retry`` connected to, for its error
        self._reset_kw: dict | None = None
        self._log: list[dict] = []
        self._episode: str | None = None

    def _connect(self) -> None:
        from aquarelle.env.client import WatercolourEnv

        with self._lock:
            url = self.urls[next(self._counter) % len(self.urls)]
        self.close()
        self.tried.add(url)
        self.client = WatercolourEnv(base_url=url).sync()
        self.client.connect()

    def _with_retry(self, fn: Any) -> Any:
        import time

        last: Exception | None = None
        self.tried = set()
        key = tuple(self.urls)
        start = time.monotonic()
        # another episode waited the whole window for these servers a moment ago: try a few times, not 3 minutes more
        # (not a reset: TRL calls it unguarded, so a reset that gives up stops the training a wait would have saved)
        given_up = fn.__name__ != "_do_reset" and start - self._gave_up.get(key, -math.inf) < self.reconnect_s
        deadline = start + (0 if given_up else self.reconnect_s)
        attempt = 0
        while attempt < self.retries or time.monotonic() < deadline:
            if attempt:
                time.sleep(min(0.25 * 2 ** attempt, 5.0))
            attempt += 1
            try:
                if self.client is None:
                    self._connect()
                    if self._reset_kw is not None and fn.__name__ != "_do_reset":
                        obs = self.client.reset(**self._reset_kw).observation
                        self._episode = obs.metadata.get("episode_id")
                        for a in self._log:  # tools mode is deterministic: replaying restores the canvas
                            self.client.step(a)
                out = fn()
                if key in self._announced or key in self._gave_up:
                    self._say_back(key, attempt, time.monotonic() - start)
                return out
            except (ConnectionError, OSError) as e:
                last = e
            except Exception as e:  # noqa: BLE001 - websockets' ConnectionClosed and friends
                if "ConnectionClosed" not in type(e).__name__ and "CAPACITY_REACHED" not in str(e):
                    raise
                last = e
            self.close()
            if attempt >= len(self.urls):  # every server tried once (one down of two: the next one answers)
                self._say_down(key, last, deadline - time.monotonic())
        with self._lock:
            self._gave_up[key] = time.monotonic()
        many = len(self.tried) > 1  # (the last error names only the last server tried)
        where = f"s unreachable after {attempt} tries (tried {', '.join(sorted(self.tried))})" if many else \
            f" unreachable after {attempt} tries"
        raise EnvUnreachable(f"environment server{where}: {last}")

    def _say_down(self, key: tuple[str, ...], err: Exception | None, left: float) -> None:
        """One stderr line per outage (not per episode or try): what is unreachable and how long it is retried."""
        with self._lock:
            if key in self._announced:
                return
            self._announced.add(key)
        first = (str(err).splitlines() or [type(err).__name__])[0] if err is not None else "no answer"
        say(f"environment server {', '.join(key)} unreachable ({first}); retrying for up to {max(0, left):.0f} s "
            f"(episodes that cannot reach it score None)")

    def _say_back(self, key: tuple[str, ...], attempt: int, waited: float) -> None:
        """The servers answer again: their outage is over (said once, by the first episode through)."""
        with self._lock:
            said = key in self._announced
            self._announced.discard(key)
            self._gave_up.pop(key, None)
        if said:
            say(f"environment server {', '.join(key)} answers again (after {attempt} tries, {waited:.0f} s; "
                f"the episode was replayed: {len(self._log)} steps)")

    def reset(self, **kw: Any) -> Any:
        self._reset_kw, self._log = dict(kw), []

        def _do_reset() -> Any:
            return self.client.reset(**kw).observation

        obs = self._with_retry(_do_reset)
        self._episode = obs.metadata.get("episode_id")
        return obs

    def step(self, action: dict) -> Any:
        def _do_step() -> Any:
            obs = self.client.step(action).observation
            if self._episode is not None and obs.metadata.get("episode_id") != self._episode:
                # the client reopened its socket on its own: a new server session without our episode
                raise ConnectionError("the server session was lost")
            return obs

        obs = self._with_retry(_do_step)
        if not obs.errors and not obs.done:
            self._log.append(action)
        return obs

    def state(self) -> Any:
        """The server's episode state (reconnecting and replaying like a step when the socket dropped)."""

        def _do_state() -> Any:
            return self.client.state()

        return self._with_retry(_do_state)

    def close(self) -> None:
        c, self.client = self.client, None
        if c is not None:
            try:
                c.close()
            except Exception:  # noqa: BLE001 - a dead socket is what we are dropping
                pass


# --------------------------------------------------------------------------- the class


class _ToolEnvBase:
    """Shared episode logic; the generated subclasses add the tool methods."""

    _config: dict[str, Any] = {}

    def __init__(self) -> None:
        urls = self._config.get("env_urls")
        cfg = self._config
        self._backend = (_RemoteBackend(list(urls), reconnect_s=cfg.get("reconnect_s", 180.0)) if urls else
                         _LocalBackend(cfg.get("reward_config")))
        self._obs: Any = None
        self._done = True
        self._started = False
        self.tool_errors = 0
        self.refusals: list[str] = []  # the episode's refused calls, as the policy was told (its rollout's errors)
        self.error: str | None = None  # an infrastructure failure that cost this episode its reward

    def reset(self, **row: Any) -> str:
        """Start an episode from a dataset row; the returned text is appended to the user message."""
        cfg = self._config
        prompt, from_chat = _subject(row)
        kw: dict[str, Any] = {"prompt": prompt, "mode": cfg["mode"], "action_space": cfg["action_space"],
                              "max_steps": cfg["max_steps"], "revisions": cfg["revisions"],
                              "return_image": cfg["return_image"]}
        if cfg.get("image_size") is not None:  # the run decides the scored image's size, in-process or on a server
            kw["image_size"] = cfg["image_size"]
        from aquarelle.rewards.config import reset_scoring

        kw.update(reset_scoring(*(row.get(k) if row.get(k) is not None else cfg.get(k) for k in ("preset", "weights"))))
        if row.get("seed") is not None:
            kw["seed"] = int(row["seed"])
        self._obs = self._backend.reset(**kw)
        self._done, self._started, self.tool_errors, self.error = False, True, 0, None
        self.refusals = []
        text = self._obs.text
        lead = f"Paint: {prompt}. "
        if cfg["mode"] == "tools":  # the tools this class offers, not the space's methods (hide_tools, shape)
            from aquarelle.env.environment import task_text

            text = task_text("tools", [n for n in public_tools(type(self)) if n != "finish"],
                             max_steps=int(self._obs.metadata.get("steps_left", cfg["max_steps"])), revisions=0,
                             prompt=None if from_chat else prompt)
        elif from_chat and text.startswith(lead):  # the subject is already in the user message
            text = text[len(lead):]  # (not cut at its first ". ": "Mt. Fuji at dawn" left "Fuji at dawn. Canvas")
        # the task is not capped: it joins the prompt (not the completion budget ``obs_chars`` guards), and cut at
        # 120 characters it lost its step budget ("... 16 steps, then finish")
        return "\n\n" + text

    # -- tool plumbing

    def _call(self, method: str, args: list) -> str:
        from aquarelle.brush.commands import given_args

        return self._step({"calls": [{"method": method, "args": given_args(args)}]})

    def _step(self, action: dict) -> str:
        if not self._started:
            raise ToolError("no episode: reset first")
        if self._done:
            raise ToolError("the painting is finished; no more tool calls")
        bad = _action_problem(action)
        if bad is not None:  # (a 10,000-point shape is over the action's call bound): one line, the episode goes on
            raise self._refused(self._cap(bad))
        obs = self._backend.step(action)
        self._obs = obs
        self._done = bool(obs.done)
        if obs.errors and not obs.done:
            raise self._refused(self._refusal(obs))
        text = self._cap(obs.text)
        if self._config.get("images") and obs.image_png_b64:
            return [{"type": "text", "text": text}, {"type": "image", "image": _pil(obs.image_png_b64)}]  # type: ignore[return-value]
        return text

    def _refused(self, message: str) -> ToolError:
        """The error for a refused call, counted and kept for the rollout's record: a revise episode whose sketch
        was refused ended with only "Finished ... reward 0.000", the reason left in the transcript alone."""
        self.tool_errors += 1
        if len(self.refusals) < MAX_REFUSALS_KEPT:
            self.refusals.append(message)
        return ToolError(message)

    def _refusal(self, obs: Any) -> str:
        """A refused call's message: the errors, and (kept whole under the cap) what the refusal left, since it
        used a step (a tools step) or a revision (revise) and the policy was told only the error."""
        from aquarelle.brush.text import clip
        from aquarelle.env.environment import revise_text, steps_left_text

        meta = obs.metadata or {}
        if "revisions_left" in meta:
            tail = " " + revise_text(meta["revisions_left"])
        elif "steps_left" in meta and not any(e.startswith("infrastructure:") for e in obs.errors):
            tail = " " + steps_left_text(meta["steps_left"])
        else:  # an infrastructure failure used no step
            tail = ""
        n = int(self._config.get("obs_chars", 400))
        errors = "; ".join(obs.errors)
        if not tail:
            return clip(errors, n)
        return clip(errors.rstrip(".") + ".", max(n - len(tail), 20)) + tail

    def _cap(self, text: str) -> str:
        """The text within ``obs_chars`` (a tool result costs completion tokens): without the painting's summary
        when it does not fit whole, then cut where the cap falls.

        Why drop the summary first: cut where the cap fell it left "So far 0 shape(s), 1 colour(s) (#a9c9e2); ..."
        in every result, about 20 of the 50 tokens each one cost and nothing a policy can use, and with it a
        demonstration's first shape overran the rollout's token budget."""
        from aquarelle.brush.text import clip
        from aquarelle.env.models import SUMMARY_LEAD

        n = int(self._config.get("obs_chars", 400))
        if len(text) > n and (at := text.find(" " + SUMMARY_LEAD)) >= 0:
            text = text[:at]  # the summary is the text's end
        return clip(text, n)

    def _ensure_final(self) -> None:
        if self._started and not self._done:
            try:
                self._obs = self._backend.step({"finish": True})
            except Exception as e:  # noqa: BLE001 - the server stayed away or failed: reward None with the reason
                self._obs, self.error = None, (str(e).splitlines() or [type(e).__name__])[0]
            self._done = True

    # -- what reward functions read (properties: TRL lists only functions as tools)

    @property
    def reward(self) -> float | None:
        """The final reward (scores the painting first if the model never called finish)."""
        self._ensure_final()
        return None if self._obs is None else self._obs.reward

    @property
    def breakdown(self) -> dict:
        self._ensure_final()
        return {} if self._obs is None else dict(self._obs.breakdown)

    @property
    def coverage(self) -> float:
        return 0.0 if self._obs is None else self._obs.coverage

    @property
    def done(self) -> bool:
        return self._done

    @property
    def program(self) -> dict | None:
        """The final command program (JSON dict), read from the environment's state."""
        self._ensure_final()
        st = self.state
        return None if st is None else st.program

    @property
    def image_png(self) -> bytes | None:
        self._ensure_final()
        b = None if self._obs is None else self._obs.image_png_b64
        return None if b is None else base64.b64decode(b)

    @property
    def image_png_b64(self) -> str | None:
        return None if self._obs is None else self._obs.image_png_b64

    @property
    def last_observation(self) -> Any:
        """The last WatercolourObservation (text, reward, done, coverage, errors, breakdown, image)."""
        return self._obs

    @property
    def state(self) -> Any:
        """The environment's WatercolourState (program, n_calls, source, ...)."""
        backend = self._backend
        if isinstance(backend, _LocalBackend):
            return backend.env.state
        return backend.state() if backend._reset_kw is not None else None

    @property
    def source(self) -> str | None:
        st = self.state
        return None if st is None else st.source

    @property
    def n_calls(self) -> int:
        st = self.state
        return 0 if st is None else st.n_calls

    @property
    def errors(self) -> list[str]:
        """The last observation's errors, then the episode's refused calls (each once)."""
        last = [] if self._obs is None else list(self._obs.errors)
        return last + [r for r in dict.fromkeys(self.refusals) if r not in last]

    def __del__(self) -> None:
        try:
            self._backend.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def public_tools(cls: type) -> list[str]:
    """The tools TRL makes of a tool class: its public functions but reset and get_reward (a tool hidden by
    setting it to None is none)."""
    import inspect

    return [n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
            if n not in ("reset", "get_reward") and not n.startswith("_")]


def _subject(row: dict) -> tuple[str, bool]:
    """The painting subject: a ``subject`` column, a string prompt, or the last user message."""
    if isinstance(row.get("subject"), str) and row["subject"]:
        return row["subject"], isinstance(row.get("prompt"), list)
    p = row.get("prompt")
    if isinstance(p, str):
        return p, False
    if isinstance(p, list):
        for m in reversed(p):
            if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str):
                return m["content"], True
    from aquarelle.env.environment import DEFAULT_PROMPT

    return DEFAULT_PROMPT, False  # as the environment paints without one (the task read "Paint: . Canvas ...")


def _pil(b64: str) -> Any:
    import io

    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB")


def tool_names(mode: str = "tools", action_space: Any = "hf10") -> list[str]:
    """The tool names a class from ``make_tool_env`` exposes, in a stable order."""
    from aquarelle.brush import SPECS, get_space

    if mode in ("sketch", "revise"):
        return ["submit_sketch"] + (["finish"] if mode == "revise" else [])
    space = get_space(action_space)
    names = [n for n in SPECS if n in space.methods and SPECS[n].kind not in ("query", "noop")]
    if {"beginShape", "vertex", "endShape"} <= space.methods:
        names.append("shape")
    return names + ["finish"]


def make_tool_env(mode: str = "tools", action_space: str | Iterable[str] = "hf10", env_urls: list[str] | str | None = None,
                  max_steps: int = 40, obs_chars: int = 400, *, revisions: int = 2, preset: str | None = None,
                  weights: dict | None = None, return_image: bool | None = None, images: bool = False,
                  reward_config: dict | None = None, image_size: int | None = None, name: str | None = None,
                  reconnect_s: float = 180.0) -> type:
    """Build the environment_factory class for one mode and action space.

    ``env_urls``: None runs in-process; a URL or list of URLs uses those servers, each http(s):// or ws(s):// (a
    URL no client can reach is a ValueError here, not 40 retries later). ``reconnect_s``: how long a dropped or
    unreachable server is retried before the episode fails (its reward None, with the reason): a restarting
    server takes tens of seconds, and failing reset would stop the trainer.
    ``image_size``: the size episodes are rendered, scored and shown at, sent with every reset so it holds
    in-process and on servers alike (None: the environment's own, 600 in-process).
    ``images=True`` makes tools return [text, image] content blocks (for a VLM).
    """
    from aquarelle.brush import SPECS, get_space

    if mode not in ("sketch", "tools", "revise"):
        raise ValueError(f"mode must be sketch, tools or revise, got {mode!r}")
    space = get_space(action_space)  # raises CommandError with a clear line for a bad space
    if isinstance(env_urls, str):
        env_urls = [u.strip() for u in env_urls.split(",") if u.strip()]
    if env_urls:
        from .preflight import server_url_problem

        for url in env_urls:
            problem = server_url_problem(url)
            if problem:
                raise ValueError(f"env_urls: {problem}")
    if not (isinstance(reconnect_s, (int, float)) and math.isfinite(reconnect_s) and reconnect_s >= 0):
        raise ValueError(f"reconnect_s must be a number of seconds >= 0, got {reconnect_s!r}")
    if not (isinstance(obs_chars, int) and obs_chars > 0):
        raise ValueError(f"obs_chars must be a whole number of characters > 0, got {obs_chars!r}")
    attrs: dict[str, Any] = {}
    for tname in tool_names(mode, space):
        if tname == "shape":
            attrs["shape"] = shape
        elif tname == "finish":
            attrs["finish"] = finish
        elif tname == "submit_sketch":
            attrs["submit_sketch"] = submit_sketch
        else:
            attrs[tname] = _make_brush_tool(SPECS[tname])
    attrs["_config"] = {
        # what a reset takes: a name, or the methods (an ActionSpace is not iterable)
        "mode": mode, "action_space": action_space if isinstance(action_space, str) else sorted(space.methods),
        "env_urls": list(env_urls) if env_urls else None, "max_steps": max_steps, "obs_chars": obs_chars,
        "revisions": revisions, "preset": preset, "weights": weights,
        "return_image": (True if images else None) if return_image is None else return_image, "images": images,
        "reward_config": reward_config, "image_size": image_size, "reconnect_s": float(reconnect_s),
    }
    attrs["__doc__"] = f"Paint in {mode} mode ({space.name}); tools: {', '.join(tool_names(mode, space))}."
    cls_name = name or ("PaintingToolEnv" if (mode, space.name) == ("tools", "hf10") else
                        f"Painting{mode.title()}Env")
    return type(cls_name, (_ToolEnvBase,), attrs)


#: The default: tools mode, hf10, in-process.
PaintingToolEnv = make_tool_env()
