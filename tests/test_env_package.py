"""OpenEnv's package layout: openenv.yaml, server/app.py and the Dockerfile pass `openenv validate`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_openenv_validate_static_passes(tmp_path):
    # a clean copy: the working tree also holds node_modules symlinks, which validation refuses
    pkg = tmp_path / "aquarelle"
    pkg.mkdir()
    for name in ("openenv.yaml", "Dockerfile", "pyproject.toml", "constraints.txt", "README.md"):
        shutil.copy(ROOT / name, pkg / name)
    for d in ("server", "src"):
        shutil.copytree(ROOT / d, pkg / d, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    openenv = Path(sys.executable).with_name("openenv")
    out = subprocess.run([str(openenv), "validate", str(pkg), "--level", "static"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS  static.manifest" in out.stdout and "Verdict: PASS" in out.stdout


def test_server_app_shim_is_the_openenv_entry_point():
    from fastapi.testclient import TestClient
    from openenv.cli._validation import _has_main_guard_call

    src = (ROOT / "server" / "app.py").read_text()
    assert "def main(" in src and _has_main_guard_call(src)
    sys.path.insert(0, str(ROOT))
    try:
        from server.app import app
    finally:
        sys.path.remove(str(ROOT))
    with TestClient(app) as client:
        assert client.get("/health").json()["status"] == "healthy"
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "reset", "data": {"mode": "tools", "prompt": "a pear"}})
            msg = ws.receive_json()
            assert msg["type"] == "observation" and msg["data"]["observation"]["coverage"] == 0.0
            ws.send_json({"type": "step", "data": {"calls": [{"method": "fill", "args": ["#c5d86d"]}]}})
            msg = ws.receive_json()
            assert msg["data"]["observation"]["errors"] == []
    app.state.runner.close()


def _settings_error(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    code = "import server.app" if not args else "from aquarelle.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "OMP_NUM_THREADS": "1", **env})


def test_a_bad_server_setting_is_one_line_naming_it():
    """The container's settings (AQUARELLE_*) and `aquarelle serve`'s flags: refused before a server starts."""
    cases = [({"AQUARELLE_IDLE_TIMEOUT": "ten"}, "AQUARELLE_IDLE_TIMEOUT"),
             ({"AQUARELLE_IDLE_TIMEOUT": "nan"}, "AQUARELLE_IDLE_TIMEOUT"),
             ({"AQUARELLE_MAX_SESSIONS": "0"}, "AQUARELLE_MAX_SESSIONS"),
             ({"AQUARELLE_WORKERS": "-5"}, "AQUARELLE_WORKERS"),  # was "one per core", as -1 is
             # a mistyped pool: the judge had no references and every episode's reward was None
             ({"AQUARELLE_POOL": "/no/such/pool"}, "AQUARELLE_POOL: no pool at /no/such/pool/pool.json")]
    for env, needle in cases:
        r = _settings_error(env)
        assert r.returncode != 0 and needle in r.stderr and "Traceback" not in r.stderr, (env, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = subprocess.run([sys.executable, "-m", "server.app", "--port", "70000"], capture_output=True, text=True,
                       timeout=120, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert r.returncode == 2 and "--port: must be 1-65535" in r.stderr and "Traceback" not in r.stderr
    r = _settings_error({}, "serve", "--port", "1", "--idle-timeout", "nan")
    assert r.returncode == 2 and "--idle-timeout" in r.stderr and "Traceback" not in r.stderr
    r = _settings_error({}, "serve", "--port", "1", "--workers", "-5")
    assert r.returncode == 2 and "--workers" in r.stderr and "Traceback" not in r.stderr


def test_a_port_in_use_or_a_bad_host_is_one_line_before_the_start_up_line():
    """uvicorn found a busy port only after "aquarelle env on ..." was printed, as if the server had started."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        r = _settings_error({}, "serve", "--port", str(port))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip() == f"cannot listen on 127.0.0.1:{port}: Address already in use", r.stderr
    r = _settings_error({}, "serve", "--host", "256.1.1.1", "--port", str(port))
    assert r.returncode == 2 and r.stderr.startswith("--host '256.1.1.1': cannot resolve it"), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_bad_reward_config_for_the_server_is_one_line(tmp_path):
    """`aquarelle serve --config` and the container's AQUARELLE_CONFIG: a file that is missing, not YAML, or
    holds a wrong key stops the server with one line naming it (exit 2), before it starts."""
    bad_key, not_yaml, no_url = tmp_path / "bad.yaml", tmp_path / "broken.yaml", tmp_path / "no_url.yaml"
    bad_key.write_text("reward: {judge_backend: vllm}\n")
    not_yaml.write_text("reward: [unclosed\n")
    no_url.write_text("reward: {judge_backend: openai}\n")  # every reward the judge is asked for would be None
    bad_url = tmp_path / "bad_url.yaml"  # so would they with a URL that has no scheme: it loaded, and served
    bad_url.write_text("reward: {judge_backend: openai, judge_url: 'judge:8000/v1'}\n")
    for path, words in ((tmp_path / "nope.yaml", "does not exist"), (bad_key, "reward.judge_backend"),
                        (not_yaml, "is not valid yaml"), (no_url, "judge_url: the openai judge needs a URL"),
                        (bad_url, "judge_url: 'judge:8000/v1' is not an http(s) URL with a host")):
        r = _settings_error({"AQUARELLE_CONFIG": str(path), "AQUARELLE_JUDGE_URL": ""})
        assert r.returncode != 0 and r.stderr.startswith("AQUARELLE_CONFIG: ") and words in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and str(path) in r.stderr, r.stderr
        r = _settings_error({"AQUARELLE_JUDGE_URL": ""}, "serve", "--port", "1", "--config", str(path))
        assert r.returncode == 2 and words in r.stderr and str(path) in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_aquarelle_config_is_what_the_container_scores_with(tmp_path):
    """The container has no command line: AQUARELLE_CONFIG names the reward config, and /scoring says it."""
    cfg = tmp_path / "run.json"
    cfg.write_text(json.dumps({"rewards": {"preset": "hps-only", "render_size": 128}}))
    code = ("import json, server.app as a; from fastapi.testclient import TestClient; "
            "print(json.dumps(TestClient(a.app).get('/scoring').json())); a.app.state.runner.close()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "OMP_NUM_THREADS": "1", "AQUARELLE_WORKERS": "0",
                            "AQUARELLE_CONFIG": str(cfg)})
    assert r.returncode == 0, r.stderr[-2000:]
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert d["preset"] == "hps-only" and d["render_size"] == 128 and d["weights"]["judge"] == 0.0


def test_sigterm_stops_a_server_cleanly_under_both_launchers():
    """`docker stop` (SIGTERM) under the container's `uvicorn server.app:app`, and under `aquarelle serve`: uvicorn
    shut down, then raised the signal again under the default handler, which killed the process before Python's
    clean-up: the log ended with "resource_tracker: There appear to be 10 leaked semaphore objects". Now exit 143
    (128 + SIGTERM), with nothing after the server's own lines."""
    import signal
    import threading
    import time

    import httpx
    from serve_process import ServeProcess, free_port

    port = free_port()
    container = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server.app:app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1", "AQUARELLE_WORKERS": "2"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(container.stderr), daemon=True)
    reader.start()
    serve = ServeProcess(max_sessions=2, workers=2)  # waits until it answers /health
    try:
        deadline = time.monotonic() + 120
        while True:
            assert container.poll() is None and time.monotonic() < deadline, "".join(err)[-2000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        for url in (f"http://127.0.0.1:{port}", serve.url):  # the worker pools, and their queues, are started
            assert httpx.post(url + "/reset", json={"mode": "tools"}, timeout=120).status_code == 200
        container.send_signal(signal.SIGTERM)
        serve.proc.send_signal(signal.SIGTERM)
        assert container.wait(60) == 143 and serve.proc.wait(60) == 143
        reader.join(10)
        serve._reader.join(10)
        for log in ("".join(err), serve.log()):
            assert "leaked" not in log and "Traceback" not in log, log[-2000:]
    finally:
        serve.stop()
        if container.poll() is None:
            container.kill()
