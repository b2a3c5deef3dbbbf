"""Checking where a command will write, before the work that fills it (a render, a policy painting for minutes)."""

from __future__ import annotations

import tempfile
from pathlib import Path


def writable_folder(folder: Path) -> str | None:
    """Make ``folder`` (and its parents) if missing and prove a file can be created in it; the reason it cannot,
    else None. A real probe, not ``os.access``: that says yes to root on a read-only mount."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        return f"{folder} is not a directory"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        return f"cannot write to {folder} ({e.strerror or e.__class__.__name__})"
    return None
