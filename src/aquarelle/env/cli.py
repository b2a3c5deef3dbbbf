"""``aquarelle serve``: the OpenEnv server (typer only at import time)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve_cmd(
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind."),
        port: int = typer.Option(8000, "--port", help="TCP port."),
        max_sessions: int = typer.Option(64, "--max-sessions", min=1, help="Concurrent WebSocket sessions."),
        workers: int = typer.Option(-1, "--workers", help="Render/score processes (-1: one per core, 0: inline)."),
        idle_timeout: float = typer.Option(600.0, "--idle-timeout", help="Reclaim sessions idle this many seconds."),
        step_size: int = typer.Option(0, "--step-size", min=0, help="Tools-step images at this size (smaller "
                                      "PNGs; 0: full size). Scores use full size."),
    ) -> None:
        """Serve the watercolour environment over OpenEnv (WebSocket /ws, /health)."""
        if not 0 < port < 65536:
            raise typer.BadParameter(f"port must be 1-65535, got {port}", param_hint="--port")
        if not 0 < idle_timeout < float("inf"):  # nan too: OpenEnv would refuse it with a traceback
            raise typer.BadParameter(f"must be a finite number > 0, got {idle_timeout}", param_hint="--idle-timeout")
        from .server import serve

        typer.echo(f"aquarelle env on http://{host}:{port} (ws /ws, max {max_sessions} sessions)", err=True)
        serve(host, port, max_sessions, workers=None if workers < 0 else workers, idle_timeout_s=idle_timeout,
              step_render_size=step_size or None)
