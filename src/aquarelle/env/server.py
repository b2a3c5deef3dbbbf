"""The OpenEnv server: many WebSocket sessions, heavy work in a process pool.

``create_server_app`` wraps OpenEnv's ``create_app``: one ``WatercolourEnvironment``
per WebSocket (``/ws``), at most ``max_sessions`` at once (over the limit a client
gets ``CAPACITY_REACHED``), sessions idle longer than ``idle_timeout_s`` reclaimed.
A client that dies closes its socket (or stops answering uvicorn's pings) and its
slot frees at once. Each session's step runs in that session's own thread, and
the sandbox/render/score part of it in a shared process pool, so a slow sketch
never stalls the event loop or another session.

Bad input answers with one line and keeps the session: ``_FrameGuard`` screens each
WebSocket frame before OpenEnv's handler (which would end the session on a frame
that is not a JSON object, nests too deep, or echoes text that is not Unicode), a
frame is at most ``WS_MAX_MESSAGE_BYTES``, and a bad reset over HTTP is a 422. A request
body that fails validation over HTTP is a 422 whose echo of the input is clipped and
escaped (FastAPI's own answer echoes it whole, and is a bare 500 when it holds text that
is not Unicode).

A client that closes its socket while its step runs costs one warning line naming the client,
the episode and the step (``_FrameGuard`` drops the reply nobody will read, and hands OpenEnv's
handler a disconnect instead of any frame still queued behind it, so a gone client's pipelined
requests are never worked through). Before, the failed send raised inside OpenEnv's error
handling and uvicorn logged a four-exception traceback per disconnect.

``_FrameGuard`` also answers ``state`` itself, built in a thread: OpenEnv builds it on the event
loop, and a legal episode's state (a sketch's 190,000 calls) is megabytes, so every other session
and ``/health`` waited on it. A session with a request in flight is never reaped for idleness
(OpenEnv counts activity only when a reply is sent). OpenEnv's MCP routes are refused: this
environment has no MCP tools, and their sessions held ``max_sessions`` slots with no connection.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
import os
import time
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from starlette.exceptions import HTTPException as StarletteHTTPException

from aquarelle.brush.text import clip, short_repr
from aquarelle.rewards.config import scoring_description

from .environment import ResetError, WatercolourEnvironment, check_image_sizes, not_unicode_at
from .models import WatercolourAction, WatercolourObservation, WatercolourState
from .work import Runner

log = logging.getLogger(__name__)

DEFAULT_IDLE_TIMEOUT_S = 600.0
#: The largest WebSocket frame (uvicorn's ``ws_max_size``, and checked again here for other launchers). A
#: sketch is at most 256 KiB to run (``MAX_SKETCH_CHARS`` to be refused with a gate 0) and an action at most
#: 5000 calls: a few MiB is ample, and parsing a frame this size holds the event loop for well under a second.
WS_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def create_server_app(max_sessions: int = 64, *, workers: int | None = None, idle_timeout_s: float | None =
                      DEFAULT_IDLE_TIMEOUT_S, reward_config: dict | None = None, render_size: int | None = None,
                      step_render_size: int | None = None, warm: bool = False) -> FastAPI:
    """Build the FastAPI app (``workers=0`` evaluates inline in the session threads). ``reward_config`` (a
    ``RewardConfig`` or its keyword dict; None: the embedded defaults) is what every episode is scored with, and
    ``GET /scoring`` describes it."""
    from openenv.core.env_server import create_app
    from openenv.core.env_server.types import ConcurrencyConfig

    from .scoring import reward_config as as_reward_config

    if max_sessions < 1:
        raise ValueError(f"max_sessions must be >= 1, got {max_sessions}")
    check_image_sizes(render_size=render_size, step_render_size=step_render_size)  # not at each session's start
    scoring = scoring_description(as_reward_config(reward_config))  # a bad dict fails here, before a worker starts
    runner = Runner(default_workers() if workers is None else workers, reward_config=reward_config)
    if warm:
        runner.warm()
    factory = functools.partial(WatercolourEnvironment, runner, render_size=render_size,
                                step_render_size=step_render_size)
    app = create_app(
        factory, WatercolourAction, WatercolourObservation, env_name="aquarelle",
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=idle_timeout_s),
        state_cls=WatercolourState,
    )
    app.state.runner = runner
    server = _openenv_server(app)
    _refuse_mcp(app)
    # ASCII JSON: text that is not Unicode (a lone surrogate, e.g. a model name from an environment variable that
    # is not UTF-8) made every GET /scoring a bare 500, and so every run refuse this server, unexplained
    scoring_body = json.dumps(scoring, ensure_ascii=True)
    app.add_api_route("/scoring", lambda: Response(scoring_body, media_type="application/json"), methods=["GET"],
                      summary="How this server scores episodes", description=_scoring_doc)
    app.router.on_shutdown.append(runner.close)
    app.add_exception_handler(ResetError, _reset_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_middleware(_FrameGuard, server=server)
    _log_to_stderr()
    return app


def _log_to_stderr() -> None:
    """The server's own warnings on stderr, as uvicorn's are, under whatever launcher (``aquarelle serve``,
    ``uvicorn server.app:app``) left logging unconfigured; a process that configured logging keeps its own."""
    root = logging.getLogger("aquarelle")
    if not root.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:  %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)


_scoring_doc = ("The scoring-relevant part of the server's reward configuration: preset and weights (a reset's "
                "own override them), judge and preference backends, judge model and URL, references, reference "
                "split, render and judge image sizes. Never an API key. Training, paint and eval compare it with "
                "their own reward config before a model loads.")


async def _reset_error(request: Request, exc: Exception) -> JSONResponse:
    """A bad reset over HTTP is the client's fault: 422 with the same line the WebSocket gives (not a bare 500)."""
    return JSONResponse(status_code=422, content={"detail": str(exc)})


#: the longest echo of a rejected value in a validation error (pydantic's ``input`` field)
ECHO_CHARS = 200


def clipped_errors(errors: list) -> list:
    """pydantic's validation errors with each echoed ``input`` clipped to ``ECHO_CHARS`` and ``ctx`` dropped (it
    may hold the exception object; ``msg`` says the same), in the same shape (``type, loc, msg, input``).

    Echoed whole, a rejected 4 MiB calls list came back to its sender whole."""
    out = []
    for err in errors:
        err = dict(err) if isinstance(err, dict) else {"msg": str(err)}
        err.pop("ctx", None)
        if "input" in err:
            try:
                echo = json.dumps(jsonable_encoder(err["input"]))
            except (TypeError, ValueError):
                echo = None
            if echo is None or len(echo) > ECHO_CHARS:
                err["input"] = short_repr(err["input"], ECHO_CHARS)
        out.append(err)
    return out


def _errors_response(errors: list, status_code: int = 422) -> Response:
    """The errors as ASCII JSON: text that is not Unicode (a lone surrogate) is escaped instead of failing to
    encode into a bare 500."""
    body = json.dumps({"detail": jsonable_encoder(clipped_errors(errors))}, ensure_ascii=True)
    return Response(body, status_code=status_code, media_type="application/json")


async def _validation_error(request: Request, exc: Exception) -> Response:
    """FastAPI's 422 for a request body that fails validation, its echo clipped and escaped."""
    return _errors_response(exc.errors())  # type: ignore[attr-defined]


async def _http_error(request: Request, exc: Exception) -> Response:
    """OpenEnv's /step raises a 422 with the action's validation errors as detail: clipped and escaped the same
    way; any other HTTP error is FastAPI's own answer."""
    detail = getattr(exc, "detail", None)
    if getattr(exc, "status_code", None) == 422 and isinstance(detail, list):
        return _errors_response(detail)
    return await http_exception_handler(request, exc)  # type: ignore[arg-type]


def _openenv_server(app: FastAPI) -> Any:
    """OpenEnv's ``HTTPEnvServer`` behind ``app`` (``create_app`` keeps no reference; its ``/ws`` handler's closure
    does), with session creation wrapped so ``_FrameGuard`` learns which session its connection holds."""
    server = None
    for route in app.router.routes:
        if getattr(route, "path", None) == "/ws":
            server = inspect.getclosurevars(route.endpoint).nonlocals.get("self")
    if server is None or not callable(getattr(server, "_create_session", None)):
        raise RuntimeError("OpenEnv's /ws handler is not where aquarelle expects it (is openenv the pinned version?)")
    create = server._create_session

    async def create_session() -> tuple[str, Any]:
        sid, env = await create()
        slot = _SESSION.get()
        if slot is not None:  # a /ws connection under _FrameGuard (same task, so the same context)
            slot.update(id=sid, env=env)
        return sid, env

    server._create_session = create_session
    return server


#: The session a ``/ws`` connection's handler created (``{"id", "env"}``), for ``_FrameGuard``.
_SESSION: contextvars.ContextVar[dict | None] = contextvars.ContextVar("aquarelle_ws_session", default=None)

#: What a client of OpenEnv's MCP routes is told.
NO_MCP = ("this environment has no MCP tools and its MCP routes are off: use the WebSocket /ws (reset, step, state) "
          "or HTTP /reset and /step")


def _refuse_mcp(app: FastAPI) -> None:
    """Replace OpenEnv's ``POST /mcp`` and ``WebSocket /mcp`` with a one-line refusal.

    Each ``openenv/session/create`` there held a ``max_sessions`` slot with no connection until the idle reaper
    came: 64 plain POSTs locked every training client out of ``/ws`` for ten minutes."""
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != "/mcp"]

    async def mcp_refused() -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": NO_MCP})

    async def mcp_ws_refused(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text(json.dumps({"jsonrpc": "2.0", "id": None,
                                              "error": {"code": -32601, "message": NO_MCP}}))
        await websocket.close(code=1008, reason="no MCP tools: use /ws")

    app.add_api_route("/mcp", mcp_refused, methods=["POST"], include_in_schema=False)
    app.add_api_websocket_route("/mcp", mcp_ws_refused)


def _state_frame(env: Any) -> str:
    """The reply OpenEnv gives a ``state`` request (``{"type": "state", "data": ...}``), or its error frame for a
    closed session; run in a thread, never on the event loop."""
    try:
        return '{"type":"state","data":' + env.state.model_dump_json() + "}"
    except Exception as e:  # noqa: BLE001 - as OpenEnv answers an exception from state
        return json.dumps({"type": "error", "data": {"message": clip(str(e), 300), "code": "EXECUTION_ERROR"}},
                          ensure_ascii=True)


class _FrameGuard:
    """ASGI middleware on ``/ws``: answer a frame OpenEnv's handler cannot take with an error, and drop it.

    OpenEnv's handler ends the session (SESSION_ERROR, socket closed) when a frame is valid JSON but not an
    object (``[]``, ``null``, ``42``), nests deeper than ``json`` can parse, is binary, or holds text that is
    not Unicode (a lone surrogate) which its reply then echoes; this answers those with an error and the
    session goes on. Frames are parsed here once more, which costs far less than the step that follows.
    On the way out, a long error frame has the inputs it echoes clipped (``clipped_error_frame``).

    With ``server`` (OpenEnv's ``HTTPEnvServer``): a ``state`` request is answered here, built in a thread
    (``_state_frame``); a request passed on counts as the session's activity when it arrives and every
    half idle timeout until its reply goes, so a step longer than ``--idle-timeout`` keeps its session; and once
    the client is gone, the handler gets a disconnect instead of the frames it left queued.
    """

    def __init__(self, app: Any, server: Any = None) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket" or scope.get("path") != "/ws":
            await self.app(scope, receive, send)
            return
        last = {"type": None, "at": time.monotonic()}  # the last frame passed on: what a dropped reply answers
        gone = False
        session: dict = {}  # filled when OpenEnv's handler creates this connection's session
        busy = False  # a request is with OpenEnv's handler (it asks for the next frame once it has replied)
        token = _SESSION.set(session)

        def touch() -> None:
            if self.server is not None and "id" in session:
                self.server._update_session_activity(session["id"])

        async def keep_alive(period: float) -> None:
            while True:
                await asyncio.sleep(period)
                if busy:
                    touch()

        async def screened() -> dict:
            nonlocal busy
            busy = False
            while True:
                if gone:  # frames the client queued before it left have nobody to answer
                    return {"type": "websocket.disconnect", "code": 1006}
                msg = await receive()
                if msg["type"] != "websocket.receive":
                    return msg
                bad, obj = _screen(msg.get("text"), msg.get("bytes"))
                kind = obj.get("type") if isinstance(obj, dict) else None
                if bad is None and obj == {"type": "state"} and session.get("env") is not None:
                    last["type"], last["at"] = kind, time.monotonic()
                    frame = await asyncio.get_running_loop().run_in_executor(None, _state_frame, session["env"])
                    await clipped({"type": "websocket.send", "text": frame})
                    continue
                if bad is None:
                    last["type"], last["at"] = kind, time.monotonic()
                    busy = True
                    touch()
                    return msg
                code, why = bad[0], clip(bad[1], 300)
                last["type"], last["at"] = None, time.monotonic()
                await clipped({"type": "websocket.send",
                               "text": json.dumps({"type": "error", "data": {"message": why, "code": code}})})

        async def clipped(msg: dict) -> None:
            nonlocal gone
            if gone:  # the client has gone: its close frame, like its reply, has nobody to go to
                return
            text = msg.get("text") if msg["type"] == "websocket.send" else None
            if text is not None and text.startswith('{"type":"error"') and (
                    len(text) > _LONG_ERROR or '"Invalid message"' in text):
                msg = {**msg, "text": clipped_error_frame(text)}
            try:
                await send(msg)
            except OSError:  # uvicorn's ClientDisconnected: the socket closed while the session worked
                gone = True  # OpenEnv's next receive gets the disconnect and ends the session
                if msg["type"] == "websocket.send":
                    log.warning(_gone_line(scope, last["type"], time.monotonic() - last["at"], text))

        timeout = getattr(self.server, "_session_idle_timeout_s", None)
        alive = asyncio.ensure_future(keep_alive(max(0.5, min(timeout / 2, 30.0)))) if timeout else None
        try:
            await self.app(scope, screened, clipped)
        finally:
            _SESSION.reset(token)
            if alive is not None:
                alive.cancel()


def _gone_line(scope: dict, kind: object, after_s: float, reply: str | None) -> str:
    """One line for a client that closed its socket before its reply was sent: who, what it asked for, how long
    before, and which episode and step the dropped reply was (an observation carries them in its metadata)."""
    client = scope.get("client")
    who = f"{client[0]}:{client[1]}" if client else "a client"
    what = f"a {kind}" if isinstance(kind, str) and kind.isidentifier() and len(kind) < 20 else "a request"
    where = ""
    try:  # only an observation names them (a state reply may be megabytes: not parsed on the event loop)
        if not (reply or "").startswith('{"type":"observation"'):
            raise ValueError
        meta = json.loads(reply or "")["data"]["observation"]["metadata"]
        where = f" (episode {short_repr(meta['episode_id'], 80)}, step {int(meta['step'])})"  # repr: one line
    except (ValueError, TypeError, KeyError):
        pass
    return (f"WebSocket client {who} disconnected during {what}{where}, {after_s:.1f} s after sending it: its "
            f"reply was dropped and its session closed")


#: error frames longer than this have their echoed inputs clipped (shorter ones are left as OpenEnv wrote them)
_LONG_ERROR = 4096


def clipped_error_frame(text: str) -> str:
    """An OpenEnv error frame with the echoed inputs of its validation ``errors`` clipped (``clipped_errors``), and
    its bare "Invalid message" told what is invalid: OpenEnv's client shows only ``message``, so a plain-dict
    client read "Invalid message (code: VALIDATION_ERROR)" for an action with both a sketch and a finish."""
    try:
        frame = json.loads(text)
        data = frame["data"]
        data["errors"] = clipped_errors(data["errors"])
        first = data["errors"][0] if data["errors"] else None
        if data.get("message") == "Invalid message" and isinstance(first, dict) and first.get("msg"):
            where = ".".join(str(x) for x in first.get("loc") or ())
            data["message"] = clip(f"Invalid message: {first['msg']}" + (f" (at {where})" if where else ""), 300)
        return json.dumps(jsonable_encoder(frame), ensure_ascii=True)
    except (ValueError, TypeError, KeyError, IndexError):
        return text


def frame_problem(text: str | None, data: bytes | None = None) -> tuple[str, str] | None:
    """(error code, one line) for a WebSocket frame the session cannot take, or None to pass it on."""
    return _screen(text, data)[0]


def _screen(text: str | None, data: bytes | None) -> tuple[tuple[str, str] | None, object]:
    """``frame_problem``'s answer, and the parsed frame when it is passed on (None for unparsed JSON)."""
    if text is None:
        return ("INVALID_JSON", f"a message must be a text frame holding a JSON object, got {len(data or b'')} "
                "bytes"), None
    if len(text) > WS_MAX_MESSAGE_BYTES:
        return ("VALIDATION_ERROR", f"a message has at most {WS_MAX_MESSAGE_BYTES} bytes, got {len(text)} "
                "characters"), None
    try:
        obj = json.loads(text)
    except RecursionError:
        return ("INVALID_JSON", "Invalid JSON: nested too deep"), None
    except json.JSONDecodeError:
        return None, None  # OpenEnv answers it (INVALID_JSON) and keeps the session
    except ValueError as e:  # e.g. an integer past Python's 4300-digit limit
        return ("INVALID_JSON", f"Invalid JSON: {str(e).splitlines()[0][:200]}"), None
    if not isinstance(obj, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(obj), "a number")
        return ("INVALID_JSON", f'a message must be a JSON object like {{"type": "step", "data": {{...}}}}, got '
                f"{kind}"), None
    if "\\u" in text:  # a lone surrogate can only arrive escaped
        why = _not_unicode_at(obj)
        if why is not None:
            return ("VALIDATION_ERROR", why), None
    if obj.get("type") == "mcp":
        return ("UNKNOWN_TYPE", NO_MCP), None
    return None, obj


def _not_unicode_at(obj: dict) -> str | None:
    """Where the message first holds text that is not Unicode (``data.prompt is ...``), or None.

    A step's sketch is left to the environment: there it is the model's fault, a gate 0 with the reason."""
    data = obj.get("data")
    skip = data.get("sketch") if obj.get("type") == "step" and isinstance(data, dict) else None
    for k, v in obj.items():
        why = not_unicode_at(k, "a key in the message") or not_unicode_at(v, k, skip)
        if why:
            return why
    return None


def serve(host: str = "127.0.0.1", port: int = 8000, max_sessions: int = 64, *, workers: int | None = None,
          idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S, ping_s: float = 20.0, **kw: Any) -> None:
    """Run the server with uvicorn; WebSocket pings find clients that died without closing."""
    import uvicorn

    app = create_server_app(max_sessions, workers=workers, idle_timeout_s=idle_timeout_s, warm=True, **kw)
    sigterm_exits_cleanly()
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_ping_interval=ping_s, ws_ping_timeout=ping_s,
                ws_max_size=WS_MAX_MESSAGE_BYTES)


def sigterm_exits_cleanly() -> None:
    """Make SIGTERM a normal exit with code 143 in a server process (its main thread; a handler someone set stays).

    uvicorn shuts down gracefully on SIGTERM (`docker stop`), then raises the signal again under the handler it
    found: the default one killed the process before Python's exit clean-up, and the resource tracker warned of
    ten leaked semaphores (the worker pools' queues). Called before uvicorn starts: by ``serve`` and by the
    container's ``server.app`` on import."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_signal)


def _exit_on_signal(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)

