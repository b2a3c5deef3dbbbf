"""`aquarelle serve` in a subprocess on a random loopback port: the real server the env and hostile tests use
(and a stand-in answering only /health and /scoring, for the checks made before a model loads); and any ASGI app
served by uvicorn in a thread of the test process (``serve_in_thread``: a stand-in judge or HPSv3 service)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve_in_thread(app: Any, ready_s: float = 10.0, stop_s: float = 5.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a daemon thread on a free loopback port and yield its URL
    (``http://127.0.0.1:PORT``) once it listens; on leaving, ask the server to exit and wait ``stop_s`` for it
    (an app with a process pool to close wants longer)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + ready_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start serving {app!r} in {ready_s:g} s")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(stop_s)


class ServeProcess:
    """Start ``aquarelle serve`` and wait until ``/health`` answers (or fail with the server's stderr).

    The server's stderr (its log) is read all along, so a chatty server never blocks on a full pipe; ``log()``
    is what it has written so far."""

    def __init__(self, max_sessions: int = 8, workers: int = 2, idle_timeout: float = 600.0,
                 ready_s: float = 120.0, stop_s: float = 15.0, args: tuple[str, ...] = (),
                 env: dict[str, str] | None = None) -> None:
        """``args``: more ``aquarelle serve`` options (``--config FILE``); ``env``: more environment variables."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.stop_s = stop_s
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aquarelle.cli", "serve", "--port", str(self.port), "--max-sessions",
             str(max_sessions), "--workers", str(workers), "--idle-timeout", str(idle_timeout), *args],
            env=dict(os.environ, OMP_NUM_THREADS="1", **(env or {})), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        self._log: list[str] = []
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + ready_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._reader.join(5)
                raise RuntimeError(f"server exited: {self.log()[-2000:]}")
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server did not become healthy in {ready_s:g} s")

    def _read_log(self) -> None:
        for line in self.proc.stderr:
            self._log.append(line)

    def log(self) -> str:
        """The server's stderr so far."""
        return "".join(self._log)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(self.stop_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()


#: what ``StubServer`` serves at /scoring by default: what a real server started with no --config serves
DEFAULT_SCORING = "default"


class StubServer:
    """A stand-in env server on a loopback port answering ``GET /health`` and ``GET /scoring``, for the checks
    made before a model loads (a real server takes ~40 s to start here; these take milliseconds).

    ``scoring`` is the description it serves (by default the embedded defaults' ``scoring_description``); None
    answers /scoring 404, as a server from before the endpoint did."""

    def __init__(self, scoring: object = DEFAULT_SCORING) -> None:
        if scoring == DEFAULT_SCORING:
            from aquarelle.rewards.config import RewardConfig, scoring_description

            scoring = scoring_description(RewardConfig())
        bodies = {"/health": {"status": "healthy"}, "/scoring": scoring}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                body = bodies.get(self.path)
                self.send_response(404 if body is None else 200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(body if body is not None else {"detail": "Not Found"}).encode())

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
