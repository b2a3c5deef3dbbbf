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


def render_cmd(
    sketch: List[Path] = typer.Argument(..., help="p5.brush sketches (.js) or command programs (.json)."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="Output PNG (one sketch only)."),
    out_dir: Optional[Path] = typer.Option(None, "--out-dir", help="Directory for <name>.png per sketch."),
    backend: str = typer.Option("native", "--backend", help="native (default) or browser (real p5.brush)."),
    size: int = typer.Option(600, "--size", help="Render at size x size pixels."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Random seed (default: the program's, else 0)."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds allowed per sketch (sandbox + render)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON line per sketch on stdout."),
) -> None:
    """Render sketches to PNG. Exit 0 only if every sketch rendered."""
    from .worker import Worker

    if backend not in ("native", "browser"):
        _fail(f'--backend must be "native" or "browser", got {backend!r}')
    if out is not None and out_dir is not None:
        _fail("use -o OUT.png or --out-dir DIR, not both")
    if out is not None and len(sketch) != 1:
        _fail(f"-o names one output file but {len(sketch)} sketches were given; use --out-dir")
    if size < 1 or size > 4096:
        _fail(f"--size must be in 1-4096, got {size}")
    if not math.isfinite(timeout) or timeout <= 0:
        _fail(f"--timeout must be a finite number > 0, got {timeout}")
    worker = Worker(backend)
    failed = 0
    try:
        for path in sketch:
            png = out if out is not None else (out_dir / (path.stem + ".png") if out_dir else path.with_suffix(".png"))
            if not path.is_file():
                res = {"ok": False, "error": "no such file", "ms": None}
            else:
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


def _fail(msg: str) -> None:
    print(msg, file=sys.stderr)
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("render")(render_cmd)
