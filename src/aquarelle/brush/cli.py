"""`aquarelle check`: run sketches (or validate program JSON) and report programs and violations.

Only typer is imported at module level so `aquarelle --help` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List

import typer


def _check_one(path: Path, action_space: str) -> dict:
    """One sketch or program file -> the per-sketch JSON object."""
    import time

    from .action_space import get_space
    from .commands import CommandError
    from .files import InputError, is_program, painting_of, read_input
    from .program import Program
    from .sandbox import run_sketch

    out = {"sketch": str(path), "ok": False, "reason": "", "violations": [], "summary": None, "ms": 0.0,
           "limit": None}
    try:
        text = read_input(path)
    except InputError as e:
        out["reason"], out["limit"] = str(e), e.limit
        return out
    t0 = time.perf_counter()
    try:  # a program, or a rollout's {"program": ...} / {"code": ...} as export takes them
        painting, program_json = painting_of(text, is_program(path, text))
        prog = Program.from_json(painting) if program_json else None
        if prog is not None:
            out["violations"] = get_space(action_space).violations(prog.commands)
            from .state import replay

            replay(prog.commands)
    except CommandError as e:
        out["reason"] = str(e)
        out["ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return out
    if prog is not None:
        out["summary"] = prog.summary()
        out["ok"] = not out["violations"]
        out["reason"] = "; ".join(out["violations"])
        out["ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return _render_refusal(out, prog)
    res = run_sketch(painting, action_space=action_space)
    out.update(ok=res.ok, reason=res.reason, violations=list(res.violations), ms=round(res.ms, 2), limit=res.limit,
               summary=res.program.summary() if res.program is not None else None)
    return _render_refusal(out, res.program)


def _render_refusal(out: dict, program) -> dict:
    """A clean program that ``render`` refuses before painting (over its painting calls or watercolour fills) is not
    ok: check passed 19,990 fills that render then refused. A program that hatches a shape with no brush or colour
    for the lines is rendered to find out whether its hatch has a line (p5.brush throws at the first; check passed
    it and render refused it). (What render refuses as it paints, its other budgets, only a render finds.)"""
    if not out["ok"] or program is None:
        return out
    from aquarelle.render.errors import RenderError
    from aquarelle.render.precheck import precheck, unstyled_hatch

    try:
        precheck(program.commands)
        if unstyled_hatch(program.commands):
            import time

            from aquarelle.render.native import render_full

            t0 = time.perf_counter()
            try:
                render_full(program)
            finally:
                out["ms"] = round(out["ms"] + (time.perf_counter() - t0) * 1000, 2)
    except RenderError as e:
        out.update(ok=False, reason=f"render: {e}")
    return out


def check(
    sketches: List[Path] = typer.Argument(..., help="p5.brush sketches (.js) or program JSON files (.json); '-' "
                                          "reads one from stdin."),
    action_space: str = typer.Option("full", "--action-space", help="full, hf10, or a comma-separated list."),
    as_json: bool = typer.Option(False, "--json", help="stdout carries only JSON, one object per sketch per line."),
) -> None:
    """Run each sketch in the sandbox; print its program summary and violations. Exit 0 only if all are clean."""
    import json

    from .action_space import get_space
    from .commands import CommandError
    from .files import stdin_twice
    from .sandbox import SandboxError

    if twice := stdin_twice(sketches):
        print(twice, file=sys.stderr)
        raise typer.Exit(2)
    try:
        get_space(action_space)
    except CommandError as e:
        print(f"--action-space: {e}", file=sys.stderr)
        raise typer.Exit(2)
    from rich.console import Console
    from rich.progress import Progress

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    all_ok = True
    # A progress bar only on a terminal and only when there is enough work to watch.
    with Progress(console=err, transient=True, disable=not err.is_terminal or len(sketches) < 5) as bar:
        task = bar.add_task("checking", total=len(sketches))
        for path in sketches:
            try:
                row = _check_one(path, action_space)
            except SandboxError as e:
                err.print(f"{path}: sandbox failure: {e}", markup=False)
                raise typer.Exit(3)
            bar.advance(task)
            all_ok &= row["ok"]
            if not row["ok"]:
                err.print(f"{path}: {row['reason'] or 'rejected'}", markup=False)
            if as_json:
                print(json.dumps(row), flush=True)
            elif row["ok"]:
                s = row["summary"]
                methods = ", ".join(f"{m} x{n}" for m, n in sorted(s["methods"].items(), key=lambda kv: -kv[1]))
                print(f"{path}: ok  {s['commands']} commands, {s['shapes']} shapes, {len(s['colours'])} colours, "
                      f"{s['size'][0]}x{s['size'][1]}, {row['ms']:.0f} ms\n  {methods}", flush=True)
    raise typer.Exit(0 if all_ok else 1)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
