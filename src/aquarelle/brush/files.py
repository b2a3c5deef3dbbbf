"""Reading a sketch (.js) or program (.json) file the one way ``check``, ``render``, ``score`` and ``export`` do.

Why one reader: each command read its input its own way, so the same file got four answers (``check`` read
/dev/zero whole before the 256 KiB source limit applied, 520 MB and a hang; ``score`` scored a binary file 0 where
``check`` and ``render`` said it could not be read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: The largest program JSON read. The sandbox records at most 200,000 commands (``SandboxLimits.max_commands``), a
#: few tens of MB written out; past this the file is no program, and reading it whole would only cost memory.
MAX_PROGRAM_BYTES = 64 * 1024 * 1024


class InputError(ValueError):
    """The file cannot be a sketch or program; the message is the whole reason, one line. ``limit`` is "source"
    when the file is only too big (``check --json`` reports the sandbox's limits so)."""

    def __init__(self, reason: str, limit: str | None = None):
        super().__init__(reason)
        self.limit = limit


#: The input name that reads standard input (``check``, ``render``, ``score`` and ``export`` alike): a program when
#: its text opens with ``{``, else sketch source, since it has no suffix to tell.
STDIN = "-"


def is_stdin(path: Path | str) -> bool:
    return str(path) == STDIN


def stdin_twice(paths) -> str | None:
    """The usage error when standard input is named more than once (it reads once), else None."""
    if sum(1 for p in paths if is_stdin(p)) > 1:
        return "'-' (standard input) can be read once; name it once"
    return None


def is_program(path: Path, text: str | None = None) -> bool:
    """A ``.json`` file is a command program; anything else is sketch source. Standard input (``text``, as read) is
    a program when it opens with ``{``, as ``export`` has always read it."""
    if is_stdin(path):
        return text is not None and text.lstrip().startswith("{")
    return Path(path).suffix.lower() == ".json"


def read_input(path: Path) -> str:
    """The file's text, reading at most its size limit plus one byte (the sandbox's source limit for a sketch,
    ``MAX_PROGRAM_BYTES`` for a program). Raises InputError: "is a directory", "no such file", "cannot read: ..."
    (not a regular file, not UTF-8, unreadable) or "source limit: ...". ``-`` reads standard input, once.

    Only regular files: a FIFO blocks on open and /dev/zero never ends."""
    from .sandbox import SandboxLimits

    if is_stdin(path):
        return _read_stdin()
    p = Path(path)
    if p.is_dir():
        raise InputError("is a directory")
    if not p.exists():
        raise InputError("no such file")
    if not p.is_file():
        raise InputError("cannot read: it is not a regular file")
    program = is_program(p)
    limit = MAX_PROGRAM_BYTES if program else SandboxLimits.max_source_bytes
    try:
        with p.open("rb") as f:
            raw = f.read(limit + 1)
            size = max(len(raw), _size(f))
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e.__class__.__name__}") from None
    if len(raw) > limit:  # the sandbox's own wording, which a sketch it was handed whole got
        raise InputError(f"source limit: the {'program' if program else 'sketch'} is {size} bytes (at most {limit})",
                         limit="source")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read: not UTF-8 text ({e})") from None


def _read_stdin() -> str:
    """Standard input, read no further than its limit plus one byte: a sketch's, and only if it opens with ``{``, a
    program's (``cat /dev/zero | aquarelle check -`` stops after 256 KiB)."""
    import sys

    from .sandbox import SandboxLimits

    stream = getattr(sys.stdin, "buffer", sys.stdin)

    def read(n: int) -> bytes:  # (a text stream, where sys.stdin was replaced by one, gives str)
        got = stream.read(n)
        return got.encode("utf-8", "surrogateescape") if isinstance(got, str) else got

    limit = SandboxLimits.max_source_bytes
    try:
        raw = read(limit + 1)
        program = raw.lstrip().startswith(b"{")
        if program and len(raw) > limit:
            limit = MAX_PROGRAM_BYTES
            raw += read(limit + 1 - len(raw))
    except OSError as e:
        raise InputError(f"cannot read stdin: {e.strerror or e.__class__.__name__}") from None
    if len(raw) > limit:
        raise InputError(f"source limit: the {'program' if program else 'sketch'} on stdin is longer than {limit} bytes",
                         limit="source")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("stdin is not UTF-8 text") from None


def _size(f) -> int:
    import os

    try:
        return os.fstat(f.fileno()).st_size
    except OSError:
        return 0


def painting_of(text: str, is_json: bool, name: str | None = None) -> tuple[Any, bool]:
    """An input's painting, parsed once: ``(program JSON value, True)`` or ``(sketch source, False)``. A ``.json``
    input may be a program, a rollout's or an episode's ``{"program": {...}}`` (that program), or a rollout's
    ``{"code": "..."}`` (its code: a sketch, or program JSON when it opens with ``{``); ``export`` took all three
    and ``check``/``render`` only the first ("program JSON needs a 'commands' list"). JSON that does not parse is
    ``parse_json``'s one-line CommandError (naming ``name`` when given); any other value is left for
    ``Program.from_json`` to refuse."""
    if not is_json:
        return text, False
    from .program import parse_json

    data = parse_json(text, name)
    if isinstance(data, dict) and "commands" not in data:
        if isinstance(data.get("program"), dict):
            return data["program"], True
        if isinstance(data.get("code"), str):
            code = data["code"]
            return painting_of(code, code.lstrip().startswith("{"), name)
    return data, True
