"""OpenEnv entry point (``openenv.yaml``: ``app: server.app:app``): the aquarelle environment server.

A shim over ``aquarelle.env.server`` so OpenEnv's tooling (``openenv serve``,
``uvicorn server.app:app``, the Dockerfile) finds the app where it expects it.
Settings come from ``AQUARELLE_MAX_SESSIONS`` / ``AQUARELLE_WORKERS`` /
``AQUARELLE_IDLE_TIMEOUT`` here (a container has no command line); ``aquarelle
serve`` takes them as flags.
"""

from __future__ import annotations

import os

from aquarelle.env.server import DEFAULT_IDLE_TIMEOUT_S, WS_MAX_MESSAGE_BYTES, create_server_app


def _env_int(name: str, default: int) -> int:
    v = os.environ.get(name)
    try:
        return default if v in (None, "") else int(v)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {v!r}") from None


app = create_server_app(
    _env_int("AQUARELLE_MAX_SESSIONS", 64),
    workers=None if _env_int("AQUARELLE_WORKERS", -1) < 0 else _env_int("AQUARELLE_WORKERS", -1),
    idle_timeout_s=float(os.environ.get("AQUARELLE_IDLE_TIMEOUT") or DEFAULT_IDLE_TIMEOUT_S),
)


def main() -> None:
    """Run the server: ``python -m server.app [--host H] [--port P]``."""
    import argparse

    import uvicorn

    ap = argparse.ArgumentParser(description="aquarelle OpenEnv server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    a = ap.parse_args()
    uvicorn.run(app, host=a.host, port=a.port, log_level="warning", ws_ping_interval=20, ws_ping_timeout=20,
                ws_max_size=WS_MAX_MESSAGE_BYTES)


if __name__ == "__main__":
    main()
