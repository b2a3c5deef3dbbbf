"""``aquarelle export``: a sketch or command program -> standalone HTML page or bare p5.brush sketch.

Only typer is imported at module level (``aquarelle --help`` must stay fast).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

FORMATS = ("html", "js")


def _warn_if_over_source_limit(program: Any, sketch: str) -> None:
    """A long program's sketch (full-precision numbers, a call a line) can pass the sandbox's source limit: it runs
    in any browser, but `aquarelle check`, `render` and the environment refuse it, so say so rather than let the
    round trip fail later."""
    from .sandbox import SandboxLimits

    size, limit = len(sketch.encode("utf-8")), SandboxLimits().max_source_bytes
    if size > limit:
        typer.echo(f"warning: the sketch is {size // 1024} KiB ({len(program.commands)} commands), over the sandbox's "
                   f"{limit // 1024} KiB source limit: it paints in a browser, but check, render and the environment "
                   "refuse it", err=True)


def _fail(msg: str, code: int = 1) -> None:
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)


def format_for(output: Path | str, fmt: str | None) -> str:
    """The explicit --format, else the output's suffix (.js -> js, .html/.htm -> html), else html."""
    if fmt is not None:
        f = fmt.lower().lstrip(".")
        if f not in FORMATS:
            raise ValueError(f"--format must be html or js, got {fmt!r}")
        return f
    suffix = Path(str(output)).suffix.lower()
    return "js" if suffix in (".js", ".mjs") else "html"


def load_program(text: str, *, name: str = "input", action_space: str = "full", seed: int = 0,
                 is_json: bool | None = None):
    """A Program from program JSON (also ``{"program": ...}`` or a rollout's ``{"code": ...}``) or sketch source.

    ``is_json``: True for a ``.json`` file (as check and render decide), else None: JSON when the text opens with
    ``{``. Raises ValueError with one line saying what is wrong.
    """
    from .commands import CommandError
    from .files import painting_of
    from .program import Program

    if is_json is None:
        is_json = text.lstrip().startswith("{")
    try:
        painting, is_json = painting_of(text, is_json, name)
    except CommandError as e:
        raise ValueError(str(e)) from None
    if is_json:
        try:
            prog = Program.from_json(painting)
            from .state import replay

            replay(prog.commands)  # the state as check replays it: a set() of a brush never added, a field("nope"),
            return prog            # was exported to a page that threw and painted nothing
        except (CommandError, ValueError) as e:
            raise ValueError(f"{name}: {str(e).splitlines()[0]}") from None
    from .sandbox import run_sketch

    result = run_sketch(painting, action_space=action_space, seed=seed)
    if not result.ok or result.program is None:
        raise ValueError(f"{name}: the sketch was rejected: {result.reason}")
    return result.program


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        source: Path = typer.Argument(..., help="A p5.brush sketch (.js) or a command program (.json); '-' reads stdin."),
        output: Path = typer.Option(..., "-o", "--output", help="Where to write; '-' writes to stdout."),
        format: Optional[str] = typer.Option(None, "--format", "-f", help="html or js (default: from the output's suffix, else html)."),
        seed: Optional[int] = typer.Option(None, "--seed", help="Seed randomSeed/noiseSeed in the export (default: the program's own seed)."),
        action_space: str = typer.Option("full", "--action-space", help="Action space a sketch input is checked against."),
    ) -> None:
        """Export a painting as one self-contained HTML page (p5 + p5.brush inlined) or a bare p5.brush sketch."""
        try:
            fmt = format_for(output, format)
        except ValueError as e:
            _fail(str(e), 2)
        from .action_space import get_space
        from .commands import CommandError
        from .files import InputError, is_program, is_stdin, read_input

        try:
            get_space(action_space)
        except CommandError as e:
            _fail(f"--action-space: {e}", 2)
        if str(output) != "-" and output.is_dir():  # before any warning about its name
            _fail(f"-o {output} is a directory; name the file to write", 2)
        suffix = output.suffix.lower() if str(output) != "-" else ""
        named = format_for(output, None)  # what the output's name says
        if format is None and str(output) != "-" and suffix not in (".html", ".htm", ".js", ".mjs"):
            typer.echo(f"warning: {output} is not .html or .js; writing {fmt}", err=True)
        elif format is not None and named != fmt and suffix in (".html", ".htm", ".js", ".mjs"):
            typer.echo(f"warning: writing {fmt} (--format) into {output}, whose name says {named}", err=True)
        if str(source) != "-" and str(output) != "-":  # the page replaced the sketch it was made from
            from aquarelle.outputs import input_finder

            if input_finder([source])(output) is not None:
                _fail(f"{output} is the input {source}; refusing to overwrite it (name another output)", 2)
        if str(output) != "-":  # checked as render -o checks its own: "File exists" named no culprit
            from aquarelle.outputs import writable_folder

            reason = writable_folder(output.absolute().parent, make=False)
            if reason:
                _fail(f"-o {output}: {reason}", 2)
        try:  # stdin too, read as check, render and score read it (no further than its limit)
            text = read_input(source)
        except InputError as e:
            _fail(str(e) if is_stdin(source) else f"{source}: {e}", 2)
        name = "stdin" if is_stdin(source) else str(source)
        try:
            is_json = True if not is_stdin(source) and is_program(source) else None
            program = load_program(text, name=name, action_space=action_space, is_json=is_json)
        except ValueError as e:
            _fail(str(e))
        from .export import to_html, to_sketch

        try:
            out = to_sketch(program, seed=seed) if fmt == "js" else to_html(program, seed=seed)
        except Exception as e:  # noqa: BLE001 - e.g. the npm bundle missing: one line, not a traceback
            _fail(str(e).splitlines()[0] if str(e) else e.__class__.__name__)
        _warn_if_over_source_limit(program, out if fmt == "js" else to_sketch(program, seed=seed))
        if str(output) == "-":
            sys.stdout.write(out)
            return
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(out, encoding="utf-8")
        except OSError as e:
            _fail(f"{output}: cannot write it ({e.strerror or e.__class__.__name__})")
        n = len(out.encode("utf-8"))  # (an 880-byte sketch read "0 KiB")
        size = f"{n} bytes" if n < 1024 else f"{n / 1024:.0f} KiB"
        typer.echo(f"wrote {output} ({fmt}, {len(program.commands)} commands, {size})", err=True)
