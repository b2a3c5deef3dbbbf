"""CLI: ``aquarelle render`` (sketches or program JSON -> PNG).

Only typer is imported at module level; numpy, numba and the renderers load in
a worker process when the command runs.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import List, Optional

import typer

#: the name a sketch read from stdin (``-``) is written under in ``--out-dir``
STDIN_STEM = "stdin"
#: the longest ``--timeout``: a day; 1e7 s overflowed the OS wait under ``Connection.poll`` (a traceback)
MAX_TIMEOUT_S = 86400.0


def render_cmd(
    sketch: List[Path] = typer.Argument(..., help="p5.brush sketches (.js) or command programs (.json); '-' reads "
                                        "one from stdin (with -o, or --out-dir for DIR/stdin.png)."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="Output PNG (one sketch only)."),
    out_dir: Optional[Path] = typer.Option(None, "--out-dir", help="Directory for <name>.png per sketch."),
    backend: str = typer.Option("native", "--backend", help="native (default) or browser (real p5.brush)."),
    size: int = typer.Option(600, "--size", help="The PNG's longer side in pixels: the canvas is painted at its "
                             "own size and resampled, its shape kept."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Random seed (default: the program's, else 0); a "
                                       "sketch's own randomSeed/brush.seed calls still reseed where they stand."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds allowed per sketch (sandbox + render, at most "
                                  f"{MAX_TIMEOUT_S:g}); the sketch's own JavaScript gets at most 5 s of it, as in "
                                  "the environment."),
    as_json: bool = typer.Option(False, "--json", help="One JSON line per sketch on stdout."),
) -> None:
    """Render sketches to PNG. Exit 0 only if every sketch rendered."""
    from ..brush.files import InputError, is_stdin, read_input, stdin_twice
    from .worker import Worker

    if twice := stdin_twice(sketch):
        _fail(twice)
    if backend not in ("native", "browser"):
        _fail(f'--backend must be "native" or "browser", got {backend!r}')
    if out is not None and out_dir is not None:
        _fail("use -o OUT.png or --out-dir DIR, not both")
    if out is not None and len(sketch) != 1:
        _fail(f"-o names one output file but {len(sketch)} sketches were given; use --out-dir")
    if size < 1 or size > 4096:
        _fail(f"--size must be in 1-4096, got {size}")
    if not math.isfinite(timeout) or not 0 < timeout <= MAX_TIMEOUT_S:
        _fail(f"--timeout must be a number of seconds > 0 and at most {MAX_TIMEOUT_S:g}, got {timeout:g}")
    if out is not None and out.suffix.lower() != ".png":
        _fail(f"-o must end in .png, got {out}")
    if out is None and out_dir is None and any(is_stdin(p) for p in sketch):
        _fail("- (stdin) has no file to write beside: name the PNG with -o OUT.png or a folder with --out-dir DIR")
    pngs = [out if out is not None else (out_dir / ((STDIN_STEM if is_stdin(p) else p.stem) + ".png") if out_dir
                                         else p.with_suffix(".png"))
            for p in sketch]
    _check_outputs(sketch, pngs, "-o" if out is not None else "--out-dir" if out_dir is not None else None)
    worker = Worker(backend)
    failed = 0
    try:
        for path, png in zip(sketch, pngs):
            if is_stdin(path):
                try:  # read here, once; the worker gets the text
                    text = read_input(path)
                except InputError as e:
                    res = {"ok": False, "error": str(e), "ms": None}
                else:
                    res = worker.run({"sketch": str(path), "text": text, "png": str(png), "size": size, "seed": seed,
                                      "timeout": timeout}, timeout)
            elif path.is_dir():
                res = {"ok": False, "error": "is a directory", "ms": None}
            elif not path.is_file():
                res = {"ok": False, "error": "no such file", "ms": None}
            else:  # a worker that could not start answers every sketch with why, launched once (Worker.run)
                res = worker.run({"sketch": str(path), "png": str(png), "size": size, "seed": seed,
                                  "timeout": timeout}, timeout)
            line = {"sketch": str(path), "ok": bool(res.get("ok")), "png": res.get("png"), "ms": res.get("ms"),
                    "coverage": res.get("coverage"), "error": res.get("error")}
            if not line["ok"]:
                failed += 1
                print(f"{path}: {line['error']}", file=sys.stderr)
            if as_json:
                print(json.dumps(line), flush=True)
            elif line["ok"]:
                print(f"{path} -> {line['png']} ({line['ms']:.0f} ms, coverage {line['coverage']:.3f})", flush=True)
    finally:
        worker.close()
    raise typer.Exit(1 if failed else 0)


def _check_outputs(sketches: List[Path], pngs: List[Path], flag: Optional[str]) -> None:
    """Before any render: no output may be an input, no two inputs may write the same PNG, and every output
    directory must be writable."""
    import os

    from aquarelle.brush.files import is_stdin
    from aquarelle.outputs import input_finder, writable_folder

    first: dict[Path, Path] = {}
    overwritten = input_finder([p for p in sketches if not is_stdin(p)])
    for path, png in zip(sketches, pngs):
        hit = overwritten(png)
        if hit is not None:
            _fail(f"{png} is the input {hit}; refusing to overwrite it (name another output)")
        key = Path(os.path.abspath(png))
        other = first.setdefault(key, path)
        if Path(os.path.abspath(other)) != Path(os.path.abspath(path)):
            _fail(f"{other} and {path} would both be written to {png}; render them separately or rename one")
    # next to each sketch (no -o/--out-dir): only where the sketch exists; a missing one is reported per sketch
    targets = [png for path, png in zip(sketches, pngs) if flag or path.is_file()]
    for png in targets:  # a folder named x.png was "internal error: IsADirectoryError" after the render
        if png.is_dir():
            _fail(f"{'-o ' if flag == '-o' else ''}{png} is a directory; name the PNG file to write")
    for folder, png in {p.parent: p for p in reversed(targets)}.items():
        where = f"--out-dir {folder}" if flag == "--out-dir" else f"-o {png}" if flag == "-o" else str(png)
        if flag == "--out-dir" and folder.exists() and not folder.is_dir():
            _fail(f"--out-dir {folder} is not a directory")
        reason = writable_folder(folder)
        if reason:
            _fail(f"{where}: {reason}")


def _fail(msg: str) -> None:
    print(msg, file=sys.stderr)
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("render")(render_cmd)
