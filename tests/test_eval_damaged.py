"""`aquarelle eval`, `report` and `compare` on damaged runs and wrong -o paths: one line, nothing of the run lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from aquarelle.eval import evaluate
from aquarelle.eval.run import load_run
from eval_fixtures import HELDOUT_PROMPTS, Synth, make_run, make_samples


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def _one_line(r: subprocess.CompletedProcess, *words: str) -> None:
    assert r.returncode != 0, r.stderr[-2000:]
    assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1, r.stderr[-2000:]
    for w in words:
        assert w in r.stderr, r.stderr


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    run = make_run(tmp_path_factory.mktemp("damaged") / "run", steps=3)
    make_samples(run, trained=Synth(), start=Synth(), prompts=HELDOUT_PROMPTS, split="heldout", k=2)
    r = _cli("eval", str(run), "--samples-file", str(run / "eval_samples.jsonl"), "--json")
    assert r.returncode == 0, r.stderr
    return run


def test_report_and_compare_never_overwrite_a_run_file(evaluated, tmp_path):
    before = (evaluated / "config.json").read_bytes()
    _one_line(_cli("report", str(evaluated), "-o", str(evaluated / "config.json")), "not an aquarelle page")
    _one_line(_cli("compare", str(evaluated), str(evaluated), "-o", str(evaluated / "config.json")),
              "not an aquarelle page")
    assert (evaluated / "config.json").read_bytes() == before
    _one_line(_cli("report", str(evaluated), "-o", str(tmp_path)), "is a directory")
    page = tmp_path / "r.html"
    for _ in range(2):  # our own page is replaced
        r = _cli("report", str(evaluated), "-o", str(page))
        assert r.returncode == 0, r.stderr


def test_compare_needs_two_runs(evaluated):
    _one_line(_cli("compare", str(evaluated)), "two or more")


def test_a_damaged_or_stale_eval_json_is_named_in_the_report(evaluated, tmp_path):
    run = make_run(tmp_path / "stale", steps=3)
    (run / "eval.json").write_text(json.dumps({"verdicts": {}}))  # an older version's file
    assert "lacks" in evaluate.problem(run)
    page = tmp_path / "r.html"
    r = _cli("report", str(run), "-o", str(page))
    assert r.returncode == 0, r.stderr
    assert "lacks weights" in page.read_text()
    (run / "eval.json").write_text('{"verdicts": {"a": ')  # cut off
    r = _cli("compare", str(run), str(evaluated), "-o", str(tmp_path / "c.html"))
    assert r.returncode == 0, r.stderr
    assert evaluate.read(evaluated) is not None and "cannot be read" in evaluate.problem(run)


def test_unreadable_samples_never_replace_a_good_eval(evaluated, tmp_path):
    before = (evaluated / "eval.json").read_bytes()
    _one_line(_cli("eval", str(evaluated), "--samples-file", str(tmp_path)), "is not a file")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe garbage\n{\"policy\": \n")
    _one_line(_cli("eval", str(evaluated), "--samples-file", str(bad)), "no readable samples")
    assert (evaluated / "eval.json").read_bytes() == before


def test_rollouts_that_are_not_utf8_are_skipped_or_named(tmp_path):
    run = make_run(tmp_path / "run", steps=3)
    good = (run / "rollouts.jsonl").read_bytes()
    (run / "rollouts.jsonl").write_bytes(good + b"\xff\xfe\x00 not text\n")
    loaded = load_run(run)
    assert loaded.skipped_lines == 1 and len(loaded.rollouts) == good.count(b"\n")
    r = _cli("eval", str(run), "--samples", "0")
    assert r.returncode == 0 and "1 unreadable lines" in r.stderr, r.stderr
    (run / "rollouts.jsonl").write_bytes(b"\xff\xfe\n")
    _one_line(_cli("eval", str(run), "--samples", "0"), "none of its 1 lines")
    _one_line(_cli("report", str(run), "-o", str(tmp_path / "r.html")), "none of its 1 lines")
    (run / "rollouts.jsonl").unlink()
    (run / "rollouts.jsonl").mkdir()
    _one_line(_cli("eval", str(run), "--samples", "0"), "is not a file")
    (run / "rollouts.jsonl").rmdir()
    (run / "rollouts.jsonl").write_text("")
    (run / "config.json").write_bytes(b"\xff\xfe")
    _one_line(_cli("eval", str(run), "--samples", "0"), "config.json")


def test_a_run_with_no_rollouts_yet_reports_quietly(tmp_path):
    run = make_run(tmp_path / "run", steps=2)
    (run / "rollouts.jsonl").write_text("")  # training has just started
    (run / "metrics.jsonl").write_text("")
    r = _cli("report", str(run), "-o", str(tmp_path / "r.html"))
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_run_without_its_final_checkpoint_cannot_be_sampled_one_line(tmp_path):
    run = make_run(tmp_path / "run", steps=2)  # config.json and rollouts, no checkpoint/
    _one_line(_cli("eval", str(run), "--samples", "1"), "trained policy", "no checkpoint/")
    assert not (run / "eval.json").exists()


def test_report_notes_unreadable_metrics_and_eval_names_an_eval_json_folder(tmp_path):
    """report on a run whose metrics.jsonl is garbage exited 0 saying nothing (eval notes it); eval.json being a
    folder was a raw "[Errno 21]" that left eval.json.tmp behind."""
    run = make_run(tmp_path / "run", steps=3)
    with open(run / "metrics.jsonl", "ab") as f:
        f.write(b"\xff\xfe garbage\n")
    r = _cli("report", str(run), "-o", str(tmp_path / "r.html"))
    assert r.returncode == 0 and r.stderr.strip() == f"note: 1 unreadable lines of {run}'s JSONL files were skipped"
    (run / "eval.json").mkdir()
    _one_line(_cli("eval", str(run), "--samples", "0"),
              f"{run / 'eval.json'} is a directory; move it away so eval can write its results there")
    assert not (run / "eval.json.tmp").exists()
    with pytest.raises(evaluate.RunError, match="is a directory"):
        evaluate.write(run, {})


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` (a decompression bomb to Pillow, which refuses it at open)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def test_a_painting_too_big_to_open_is_skipped_not_a_traceback(tmp_path):
    """Pillow refuses a 20000 x 20000 image with DecompressionBombError, which report did not catch."""
    from aquarelle.eval import images
    from aquarelle.eval.report import write_report

    run = make_run(tmp_path / "run", steps=3)
    first = load_run(run).rollouts[0]
    (run / first.image).write_bytes(_png_header(20000, 20000))
    assert images.load(run / first.image) is None and images.thumbnail_png(run / first.image) is None
    page = write_report(run, tmp_path / "report.html").read_text()
    assert "<html" in page
