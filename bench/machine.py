"""What machine a benchmark ran on, for its JSON results.

Why the CPU model: the same commit's renderer timings moved by half between two of our
development machines (p50 17.5 ms on one, 27.5 ms on another), and results that said only
"2 cpus" could not tell a slower machine from a slower renderer.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    """The processor's name as the kernel reports it (``model name`` in /proc/cpuinfo), else what
    ``platform`` knows (often only the architecture)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe(**extra) -> dict:
    """Python version, CPU count and model, plus a bench's own ``extra`` fields (its load averages, threads)."""
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "cpu_model": cpu_model(), **extra}
