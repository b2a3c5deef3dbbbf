"""The OpenEnv server: many WebSocket sessions, heavy work in a process pool.

``create_server_app`` wraps OpenEnv's ``create_app``: one ``WatercolourEnvironment``
per WebSocket (``/ws``), at most ``max_sessions`` at once (over the limit a client
gets ``CAPACITY_REACHED``), sessions idle longer than ``idle_timeout_s`` reclaimed.
A client that dies closes its socket (or stops answering uvicorn's pings) and its
slot frees at once. Each session's step runs in that session's own thread, and
the sandbox/render/score part of it in a shared process pool, so a slow sketch
never stalls the event loop or another session.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from fastapi import FastAPI

from .environment import WatercolourEnvironment
from .models import WatercolourAction, WatercolourObservation, WatercolourState
from .work import Runner

DEFAULT_IDLE_TIMEOUT_S = 600.0


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def create_server_app(max_sessions: int = 64, *, workers: int | None = None, idle_timeout_s: float | None =
                      DEFAULT_IDLE_TIMEOUT_S, reward_config: dict | None = None, render_size: int | None = None,
                      step_render_size: int | None = None, warm: bool = False) -> FastAPI:
    """Build the FastAPI app (``workers=0`` evaluates inline in the session threads)."""
    from openenv.core.env_server import create_app
    from openenv.core.env_server.types import ConcurrencyConfig

    if max_sessions < 1:
        raise ValueError(f"max_sessions must be >= 1, got {max_sessions}")
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
    app.router.on_shutdown.append(runner.close)
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, max_sessions: int = 64, *, workers: int | None = None,
          idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S, ping_s: float = 20.0, **kw: Any) -> None:
    """Run the server with uvicorn; WebSocket pings find clients that died without closing."""
    import uvicorn

    app = create_server_app(max_sessions, workers=workers, idle_timeout_s=idle_timeout_s, warm=True, **kw)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_ping_interval=ping_s, ws_ping_timeout=ping_s,
                ws_max_size=16 * 1024 * 1024)
