"""OpenEnv entry point (``openenv.yaml``: ``app: server.app:app``): the aquarelle environment server.

A shim over ``aquarelle.env.server`` so OpenEnv's tooling (``openenv serve``,
``uvicorn server.app:app``, the Dockerfile) finds the app where it expects it.
Settings come from ``AQUARELLE_MAX_SESSIONS`` / ``AQUARELLE_WORKERS`` /
``AQUARELLE_IDLE_TIMEOUT`` / ``AQUARELLE_CONFIG`` here (a container has no command
line); ``aquarelle serve`` takes them as flags.
"""

from __future__ import annotations

import math
import os

from aquarelle.env.server import DEFAULT_IDLE_TIMEOUT_S, WS_MAX_MESSAGE_BYTES, create_server_app, sigterm_exits_cleanly


def _env_number(name: str, default: float, kind: type = int, minimum: float | None = None,
                above: float | None = None) -> float:
    """A setting from the environment; a bad one stops the server with one line naming the variable, as
    ``aquarelle serve`` does for its flags (a traceback in a container's log hides which variable is wrong)."""
    v = os.environ.get(name)
    if v in (None, ""):
        return default
    try:
        x = kind(v)
    except ValueError:
        raise SystemExit(f"{name} must be {'an integer' if kind is int else 'a number'}, got {v!r}") from None
    if not (math.isfinite(x) and (minimum is None or x >= minimum) and (above is None or x > above)):
        bound = f">= {minimum}" if minimum is not None else f"> {above}"
        raise SystemExit(f"{name} must be a finite number {bound}, got {v!r}")
    return x


def _env_reward_config() -> object:
    """The reward config in the file ``AQUARELLE_CONFIG`` names (read as ``aquarelle serve --config`` reads it),
    or None for the embedded defaults; a bad file stops the server with one line naming the variable."""
    from aquarelle.env.scoring import server_reward_config
    from aquarelle.rewards.config import RewardError

    path = os.environ.get("AQUARELLE_CONFIG") or None
    try:
        config = server_reward_config(path)  # without a file too: the defaults' judge needs its pool (AQUARELLE_POOL)
    except RewardError as e:
        raise SystemExit(f"AQUARELLE_CONFIG: {e}" if path else str(e)) from None
    return config if path else None


sigterm_exits_cleanly()  # `docker stop` under the container's `uvicorn server.app:app` exits 143, cleanly
_WORKERS = _env_number("AQUARELLE_WORKERS", -1, minimum=-1)  # -1: one per core, 0: inline
app = create_server_app(
    _env_number("AQUARELLE_MAX_SESSIONS", 64, minimum=1),
    workers=None if _WORKERS < 0 else _WORKERS,
    idle_timeout_s=_env_number("AQUARELLE_IDLE_TIMEOUT", DEFAULT_IDLE_TIMEOUT_S, float, above=0),
    reward_config=_env_reward_config(),
)


def _port(text: str) -> int:
    """A TCP port, refused by argparse with one line (uvicorn's bind would raise OverflowError)."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"must be 1-65535, got {text!r}")
    return port


def main() -> None:
    """Run the server: ``python -m server.app [--host H] [--port P]``."""
    import argparse

    import uvicorn

    ap = argparse.ArgumentParser(description="aquarelle OpenEnv server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=_port, default=8000)
    a = ap.parse_args()
    uvicorn.run(app, host=a.host, port=a.port, log_level="warning", ws_ping_interval=20, ws_ping_timeout=20,
                ws_max_size=WS_MAX_MESSAGE_BYTES)


if __name__ == "__main__":
    main()
