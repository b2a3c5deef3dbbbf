"""`aquarelle serve-hps` flags: a port that cannot exist is refused before the hpsv3 check or a model load."""

from __future__ import annotations

import os
import subprocess
import sys


def test_serve_hps_refuses_a_port_out_of_range():
    env = dict(os.environ, OMP_NUM_THREADS="1", COLUMNS="200")
    for port in ("0", "70000"):
        r = subprocess.run([sys.executable, "-m", "aquarelle.cli", "serve-hps", "--port", port], capture_output=True,
                           text=True, env=env, timeout=60)
        assert r.returncode == 2 and "--port" in r.stderr and "hpsv3" not in r.stderr, r.stderr
