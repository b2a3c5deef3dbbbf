"""Checking where a command will write, before the work that fills it (a render, a policy painting for minutes)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable


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


def input_finder(inputs: list[Path]) -> Callable[[Path], Path | None]:
    """A lookup of the input that writing an output would replace (the same file, through links or ``..``), else
    None; the inputs are indexed once, so checking every output of a many-sketch render stays linear.

    Why: ``export self.js -o self.js`` replaced the sketch with its own export and ``render pic.png -o pic.png``
    its input with a failed render's output; a command never writes over what it reads."""
    import os

    by_file: dict[tuple[int, int], Path] = {}  # existing inputs: hard links and symlinks alike
    by_path: dict[str, Path] = {}  # inputs that do not exist (yet): where they would be
    for p in inputs:
        try:
            st = os.stat(p)
            by_file.setdefault((st.st_dev, st.st_ino), Path(p))
        except OSError:
            by_path.setdefault(os.path.realpath(p), Path(p))

    def find(out: Path) -> Path | None:
        try:
            st = os.stat(out)
        except OSError:  # not there yet: only an input that is not there either can be at the same place
            return by_path.get(os.path.realpath(out))
        return by_file.get((st.st_dev, st.st_ino))

    return find


def checkpoints(run: Path) -> list[Path]:
    """A run's step checkpoints (``RUN/checkpoints/checkpoint-<step>``, ASCII digits), oldest first; any other name
    is not one (a stray ``checkpoint-final`` was a ValueError traceback where Ctrl-C should have said where the run
    stood, and the report's status line crashed on ``checkpoint-²``)."""
    import re

    found = [p for p in (Path(run) / "checkpoints").glob("checkpoint-*")
             if re.fullmatch(r"checkpoint-[0-9]+", p.name)]
    return sorted(found, key=lambda p: int(p.name.rsplit("-", 1)[-1]))
