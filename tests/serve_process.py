"""`aquarelle serve` in a subprocess on a random loopback port: the real server the env and hostile tests use."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    """Start ``aquarelle serve`` and wait until ``/health`` answers (or fail with the server's stderr)."""

    def __init__(self, max_sessions: int = 8, workers: int = 2, idle_timeout: float = 600.0,
                 ready_s: float = 120.0, stop_s: float = 15.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.stop_s = stop_s
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aquarelle.cli", "serve", "--port", str(self.port), "--max-sessions",
             str(max_sessions), "--workers", str(workers), "--idle-timeout", str(idle_timeout)],
            env=dict(os.environ, OMP_NUM_THREADS="1"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + ready_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.proc.stderr.read()[-2000:]}")
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server did not become healthy in {ready_s:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(self.stop_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
