"""``aquarelle serve``: the OpenEnv server (typer only at import time)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve_cmd(
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind."),
        port: int = typer.Option(8000, "--port", help="TCP port."),
        max_sessions: int = typer.Option(64, "--max-sessions", min=1, help="Concurrent WebSocket sessions."),
        workers: int = typer.Option(-1, "--workers", min=-1, help="Render/score processes (-1: one per core, 0: inline)."),
        idle_timeout: float = typer.Option(600.0, "--idle-timeout", help="Reclaim sessions idle this many seconds."),
        step_size: int = typer.Option(0, "--step-size", min=0, help="Tools-step images at this size when "
                                      "smaller than the episode's (smaller PNGs; 0: the episode's). Scores use the "
                                      "episode's size: its reset's image_size, else the painting's own."),
        config: Optional[Path] = typer.Option(None, "--config", help="Reward or training config (JSON or YAML) "
                                              "to score with, read as `aquarelle score --config` reads it; "
                                              "default: the embedded defaults."),
    ) -> None:
        """Serve the watercolour environment over OpenEnv (WebSocket /ws, /health, /scoring)."""
        if not 0 < port < 65536:
            raise typer.BadParameter(f"port must be 1-65535, got {port}", param_hint="--port")
        if not 0 < idle_timeout < float("inf"):  # nan too: OpenEnv would refuse it with a traceback
            raise typer.BadParameter(f"must be a finite number > 0, got {idle_timeout}", param_hint="--idle-timeout")
        from .environment import IMAGE_SIZES, is_image_size

        if step_size and not is_image_size(step_size):
            raise typer.BadParameter(f"must be 0 (the episode's size) or {IMAGE_SIZES[0]}-{IMAGE_SIZES[1]} pixels, "
                                     f"got {step_size}", param_hint="--step-size")
        from aquarelle.rewards.config import RewardError

        from .scoring import server_reward_config

        try:
            scoring = server_reward_config(config)
        except RewardError as e:  # one line and exit 2, as `aquarelle score --config`, before the server starts
            typer.echo(str(e), err=True)
            raise typer.Exit(2) from None
        problem = _listen_problem(host, port)
        if problem:  # uvicorn printed it after our start-up line, as if the server had come up
            typer.echo(problem, err=True)
            raise typer.Exit(2)
        from .server import serve

        typer.echo(f"aquarelle env on http://{host}:{port} (ws /ws, max {max_sessions} sessions; scores with "
                   f"{_scoring_line(scoring)})", err=True)
        serve(host, port, max_sessions, workers=None if workers < 0 else workers, idle_timeout_s=idle_timeout,
              step_render_size=step_size or None, reward_config=scoring)


def _listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (a host that does not resolve, a port in use), else None.

    Tried before the start-up line: uvicorn found it only after "aquarelle env on ..." was printed, so a busy port
    read as a server that started and then failed ("[Errno 98]"), and a bad --host did not name the host. The
    socket is bound as uvicorn binds it (SO_REUSEADDR) and closed at once."""
    import socket

    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as e:
        return f"--host {host!r}: cannot resolve it ({getattr(e, 'strerror', None) or e})"
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as e:
            return f"cannot listen on {host}:{port}: {e.strerror or e}"
    return None


def _scoring_line(cfg) -> str:
    """The reward config in a few words for the start-up line: which scorers a server uses is the first thing to
    check when its rewards look wrong."""
    judge = cfg.judge_backend + (f" {cfg.resolved_judge_model()}" if cfg.judge_backend == "openai" else "")
    weights = f" + weights {cfg.weights}" if cfg.weights else ""
    return f"preset {cfg.preset}{weights}, judge {judge}, preference {cfg.preference_backend}"
