"""Checking where a command will write, before the work that fills it (a render, a policy painting for minutes)."""

from __future__ import annotations

import tempfile
from pathlib import Path


def writable_folder(folder: Path, make: bool = True) -> str | None:
    """Make ``folder`` (and its parents) if missing and prove a file can be created in it; the reason it cannot,
    else None. A real probe, not ``os.access``: that says yes to root on a read-only mount.

    ``make=False`` makes nothing: it probes the nearest folder that exists, where the missing ones would be made
    (for a command that may still fail before it writes, and must not leave empty folders behind)."""
    folder = Path(folder)
    if not make:
        missing = missing_folders(folder)
        folder = missing[-1].parent if missing else folder
    if folder.exists() and not folder.is_dir():
        return f"{folder} is not a directory"
    try:
        if make:
            folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        return f"cannot write to {folder} ({e.strerror or e.__class__.__name__})"
    return None


def missing_folders(path: Path) -> list[Path]:
    """``path`` and its parents up to the first that exists, deepest first: what ``mkdir(parents=True)`` would make
    (and what a command that failed before writing removes again)."""
    missing = []
    path = Path(path).absolute()
    while not path.exists() and path.parent != path:
        missing.append(path)
        path = path.parent
    return missing


def overwritten_input(out: Path, inputs: list[Path]) -> Path | None:
    """The input that writing ``out`` would replace (the same file, through links or ``..``), else None.

    Why: ``export self.js -o self.js`` replaced the sketch with its own export and ``render pic.png -o pic.png``
    its input with a failed render's output; a command never writes over what it reads."""
    import os

    target = Path(out)
    for p in inputs:
        try:
            if target.exists() and Path(p).exists():
                if os.path.samefile(target, p):
                    return Path(p)
            elif os.path.realpath(target) == os.path.realpath(p):
                return Path(p)
        except OSError:
            continue
    return None
