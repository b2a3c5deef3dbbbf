"""``aquarelle eval``, ``aquarelle report`` and ``aquarelle compare``.

Only typer at module level: the evaluation code (numpy, scipy, matplotlib) is
imported inside each command so ``aquarelle --help`` stays fast.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import List, Optional

import typer


def _fail(msg: str, code: int = 1) -> None:
    print(f"error: {msg}", file=sys.stderr)
    raise typer.Exit(code)


def _known_errors() -> tuple[type[BaseException], ...]:
    from .prompts import PromptError
    from .run import RunError
    from .sampling import SamplingError

    return (RunError, PromptError, SamplingError, OSError)


def _check_page_out(out: Path) -> None:
    """-o must be a new file or one of our own pages: never a directory, a run's JSON or someone's other file.

    Why: ``report RUN -o RUN/config.json`` used to replace the run's config with HTML.
    """
    if out.is_dir():
        _fail(f"-o {out} is a directory; name the HTML file to write", 2)
    from aquarelle.outputs import writable_folder

    # as render -o and paint -o check theirs: a folder that cannot be written was a bare "[Errno 2] No such file
    # or directory: '/proc/r.html'" after the page was built; nothing is made here (the run may not exist)
    reason = writable_folder(out.absolute().parent, make=False)
    if reason:
        _fail(f"-o {out}: {reason}", 2)
    if out.exists():
        try:
            with out.open("rb") as f:
                head = f.read(1024).decode("utf-8", "replace").lower()
        except OSError as e:
            _fail(f"-o {out}: {e.strerror or e}", 2)
        if "<title>aquarelle " not in head:
            _fail(f"-o {out} exists and is not an aquarelle page; refusing to overwrite it", 2)


def _check_samples(samples: int | None, samples_file: Path | None) -> int:
    """--samples is 0-MAX_SAMPLES (8 when not given), and not beside --samples-file, whose paintings are already
    drawn: a --samples 7 there was silently ignored. Checked before the run is read, so a count too large to plan
    fails at once instead of hanging."""
    from .sampling import MAX_SAMPLES

    if samples is None:
        return 8
    if samples_file is not None:
        _fail("--samples applies only when eval samples (not with --samples-file)", 2)
    if not 0 <= samples <= MAX_SAMPLES:
        _fail(f"--samples must be 0-{MAX_SAMPLES}, not {samples}", 2)
    return samples


def _note_skipped(run: Path, n: int | None) -> None:
    """A run whose JSONL lines could not be read is reported on, not refused; the note says the page or table is
    short of them (report said nothing, so a run of garbage metrics looked like one that logged no steps)."""
    if n:
        print(f"note: {n} unreadable lines of {run}'s JSONL files were skipped", file=sys.stderr)


def _check_temperature(temperature: float | None, sampling: bool) -> None:
    """--temperature is a finite number >= 0, and only where eval samples: paintings already drawn (--samples-file,
    --samples 0) keep the temperature they were drawn at, which eval.json reports."""
    if temperature is None:
        return
    if not sampling:
        _fail("--temperature applies only when eval samples (not with --samples-file or --samples 0)", 2)
    if not math.isfinite(temperature) or temperature < 0:
        _fail(f"--temperature must be a finite number >= 0, not {temperature}", 2)


def eval_cmd(
    run: Path = typer.Argument(..., help="Run directory written by `aquarelle train`."),
    prompts: str = typer.Option("heldout", "--prompts", help="Prompts to sample on: heldout, train or all."),
    samples: Optional[int] = typer.Option(None, "--samples",
                                          help="Paintings per policy (trained and starting) per prompt split, at most "
                                               "1000 (default 8); 0 = draw none (the last sampling's, "
                                               "eval_samples.jsonl, are used while of this policy)."),
    samples_file: Optional[Path] = typer.Option(None, "--samples-file",
                                                help="Evaluate pre-sampled paintings (JSONL rollouts with a `policy` "
                                                     "key, trained|start) instead of sampling."),
    seed: int = typer.Option(0, "--seed", help="Sampling seed."),
    temperature: Optional[float] = typer.Option(None, "--temperature",
                                                help="Sampling temperature for both policies (0: greedy); default: "
                                                     "the run's generation.temperature, the one GRPO sampled at."),
    as_json: bool = typer.Option(False, "--json", help="Print only the eval JSON object on stdout."),
) -> None:
    """Evaluate a run: trend, scorer agreement, diversity, tool adherence, held-out; writes RUN/eval.json."""
    import json

    if prompts not in ("heldout", "train", "all"):
        _fail(f"--prompts must be heldout, train or all, not {prompts!r}", 2)
    samples = _check_samples(samples, samples_file)
    _check_temperature(temperature, sampling=samples_file is None and samples > 0)
    from . import evaluate

    import contextlib

    # with --json stdout carries only the object: anything the sampled models' libraries print goes to stderr
    quiet = contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext()
    try:
        evaluate.check_writable(run)
        with quiet:
            ev = evaluate.evaluate(run, prompts=prompts, samples=samples, samples_file=samples_file, seed=seed,
                                   progress=sys.stderr.isatty(),  # elsewhere a bar leaves blank lines
                                   temperature=temperature)
        path = evaluate.write(run, ev)
    except _known_errors() as e:
        _fail(str(e))
    _note_skipped(run, ev.get("skipped_lines"))
    if as_json:
        sys.stdout.write(json.dumps(ev, allow_nan=False) + "\n")
        return
    evaluate.print_table(ev)
    print(f"wrote {path}", file=sys.stderr)


def report_cmd(
    run: Path = typer.Argument(..., help="Run directory (its eval.json is used when present)."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="HTML file to write [default: RUN/report.html, "
                                       "beside the run it reports, as `demo` writes it]."),
) -> None:
    """Write one static HTML report for a run: verdicts, curves, tables, gallery, held-out comparison."""
    from .report import write_report
    from .run import load_run

    out = run / "report.html" if out is None else out  # (./report.html: a second run's report replaced the first's)
    _check_page_out(out)
    try:
        loaded = load_run(run)
        path = write_report(run, out, loaded)
    except _known_errors() as e:
        _fail(str(e))
    _note_skipped(run, loaded.skipped_lines)
    print(f"report: {path.resolve()}")


def compare_cmd(
    runs: List[Path] = typer.Argument(..., help="Two or more run directories (e.g. the three presets)."),
    out: Path = typer.Option(Path("compare.html"), "-o", "--out", help="HTML file to write."),
) -> None:
    """Put several runs side by side on one page and in one table."""
    from .compare import differences, print_table, rows, write_compare
    from .run import load_run

    if len(runs) < 2:
        _fail("compare needs two or more run directories (for one run: `aquarelle report RUN`)", 2)
    _check_page_out(out)
    try:
        loaded = [load_run(r) for r in runs]
        for r, run in zip(runs, loaded):
            _note_skipped(r, run.skipped_lines)
        table = rows(runs, loaded)
        path = write_compare(runs, out, table, loaded)
        print_table(table)
    except _known_errors() as e:
        _fail(str(e))
    diff = differences(table)
    if diff:  # the table compares policies only where nothing else differs
        print(f"note: these runs differ in {', '.join(diff)} (the page's \"What differs\" lists them)", file=sys.stderr)
    print(f"compare: {path.resolve()}")


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)
    app.command("report")(report_cmd)
    app.command("compare")(compare_cmd)
