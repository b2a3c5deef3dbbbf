"""The report and compare pages open in headless Chromium without errors and show every image."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aquarelle.eval.compare import write_compare
from aquarelle.eval.evaluate import evaluate, write
from aquarelle.eval.report import write_report
from eval_fixtures import HELDOUT_PROMPTS, Synth, make_run, make_samples

pytestmark = pytest.mark.browser

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        yield b
        b.close()


def open_page(browser, path: Path) -> tuple[list[str], list[dict], object]:
    """Load a file, return console errors, every <img>'s load state, and the page."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"requestfailed: {r.url[:80]}"))
    page.goto(path.resolve().as_uri(), wait_until="load")
    imgs = page.evaluate("""Array.from(document.images).map(i => ({complete: i.complete, w: i.naturalWidth,
        lazy: i.loading === 'lazy', src: i.src.slice(0, 30)}))""")
    return problems, imgs, page


@pytest.fixture(scope="module")
def evaluated_run(tmp_path_factory):
    path = make_run(tmp_path_factory.mktemp("rep") / "run", steps=9, outside_rate=0.2)
    make_samples(path, trained=Synth(judge=(0.7, 0.7), gate_fail=(0, 0)), start=Synth(judge=(0.3, 0.3), gate_fail=(0, 0)),
                 prompts=HELDOUT_PROMPTS, split="heldout", k=4)
    write(path, evaluate(path, samples_file=path / "eval_samples.jsonl", progress=False))
    return path


def test_report_opens_without_errors_and_shows_its_images(browser, evaluated_run, tmp_path):
    out = write_report(evaluated_run, tmp_path / "report.html")
    problems, imgs, page = open_page(browser, out)
    assert problems == []
    assert len(imgs) >= 20
    assert all(i["complete"] and i["w"] > 0 for i in imgs), [i for i in imgs if not i["w"]]
    assert not any(i["lazy"] for i in imgs)
    assert all(i["src"].startswith("data:image/png") for i in imgs)
    text = page.inner_text("body")
    page.close()
    for q in ("Do quality and reward improve steadily?", "over-fitting one scorer", "Is it diverse?",
              "hold on new (held-out) prompts", "use the tools"):
        assert q in text
    assert "judge" in text and "preference" in text
    html = out.read_text()
    assert re.search(r"<h2 id=\"held-out\">held-out</h2>", html)
    held = html.split('id="held-out"')[1].split("<h2")[0]
    assert "trained policy, held-out prompts" in held and "starting policy, held-out prompts" in held
    assert held.count("<img") >= 3  # the bar chart and trained/start paintings
    assert "Gallery" in text and "best" in text and "worst" in text
    assert "rect" in text  # the outside-the-space calls are named in tool adherence


def test_report_of_a_two_step_run_without_eval(browser, tmp_path):
    run = make_run(tmp_path / "short", steps=2)
    out = write_report(run, tmp_path / "short.html")
    problems, imgs, page = open_page(browser, out)
    text = page.inner_text("body")
    page.close()
    assert problems == [] and imgs and all(i["w"] > 0 for i in imgs)
    assert "Too short to tell" in text and "held-out" in text
    assert not (run / "eval.json").exists()  # the report does not pretend an eval was run


def test_compare_page_opens_without_errors(browser, evaluated_run, tmp_path):
    other = make_run(tmp_path / "hps", steps=6, preset="hps-only", collapse_after=0.5)
    out = write_compare([evaluated_run, other], tmp_path / "compare.html")
    problems, imgs, page = open_page(browser, out)
    text = page.inner_text("body")
    page.close()
    assert problems == [] and imgs and all(i["w"] > 0 for i in imgs)
    assert "hps-only" in text and "judge-led" in text
    assert "collapsed" in text


def test_report_command_writes_the_file(evaluated_run, tmp_path):
    from typer.testing import CliRunner

    from aquarelle.cli import app

    out = tmp_path / "via-cli.html"
    res = CliRunner().invoke(app, ["report", str(evaluated_run), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.exists() and str(out.resolve()) in res.output
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nope"), "-o", str(out)])
    assert res.exit_code == 1 and "does not exist" in res.output


def test_report_to_a_place_that_cannot_be_written_is_one_line(evaluated_run, tmp_path):
    """-o under a file or in /proc was a raw errno line ("[Errno 17] File exists: '.../afile'") once the page was
    built; it names -o and why, before any work, as render -o does, and makes no folder on the way."""
    from typer.testing import CliRunner

    from aquarelle.cli import app

    afile = tmp_path / "afile"
    afile.write_text("x")
    for out, why in ((afile / "r.html", f"{afile} is not a directory"),
                     (afile / "deeper" / "r.html", f"{afile} is not a directory"),
                     (Path("/proc/r.html"), "cannot write to /proc (")):
        for cmd in (["report", str(evaluated_run)], ["compare", str(evaluated_run), str(evaluated_run)]):
            res = CliRunner().invoke(app, [*cmd, "-o", str(out)])
            assert res.exit_code == 2, res.output
            assert res.output.startswith(f"error: -o {out}: {why}") and res.output.count("\n") == 1, res.output
            assert "Errno" not in res.output
    # a missing run leaves none of -o's new folders behind (they were made before the run was read)
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nope"), "-o", str(tmp_path / "new" / "r.html")])
    assert res.exit_code == 1 and "does not exist" in res.output and not (tmp_path / "new").exists()


def test_report_refreshes_training_metrics_when_the_run_went_on(tmp_path):
    from aquarelle.eval.report import build

    path = make_run(tmp_path / "r", steps=2)
    write(path, evaluate(path, samples=0, progress=False))
    assert "Too short to tell" in build(path)
    longer = make_run(tmp_path / "r2", steps=9)
    (path / "rollouts.jsonl").write_text((longer / "rollouts.jsonl").read_text().replace('"images/', '"../r2/images/'))
    page = build(path)
    assert "Too short to tell" not in page and "Steadily" in page


def test_a_verdict_does_not_repeat_its_answer():
    from aquarelle.eval.report import _after_answer

    assert _after_answer({"answer": "no", "text": "No, reward did not rise: 0.05 -> 0.03"}) == \
        "Reward did not rise: 0.05 -> 0.03"
    assert _after_answer({"answer": "yes", "text": "Yes. 42 calls"}) == "42 calls"
    assert _after_answer({"answer": "no", "text": "No: 50% of the canvases are blank"}) == "50% of the canvases are blank"
    # a sentence that only starts with the word keeps it, and so does one whose answer differs
    assert _after_answer({"answer": "no", "text": "No sign of it: the scorers move together"}) == \
        "No sign of it: the scorers move together"
    assert _after_answer({"answer": "unclear", "text": "No rollout was scored"}) == "No rollout was scored"


def test_compare_and_report_escape_what_a_run_folder_and_its_config_say(tmp_path):
    """A table cell that began with '<' went into the page raw: a run folder named '<img onerror=...>' or a preset
    from its config.json ran script in compare.html."""
    hostile = "<img src=x onerror=alert(1)>"
    a = make_run(tmp_path / "plain", steps=3)
    import json

    b = make_run(tmp_path / hostile, steps=3)
    cfg = json.loads((b / "config.json").read_text())
    cfg["config"]["reward"]["preset"] = hostile
    (b / "config.json").write_text(json.dumps(cfg))
    page = write_compare([a, b], tmp_path / "compare.html").read_text()
    assert hostile not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    page = write_report(b, tmp_path / "report.html").read_text()
    assert hostile not in page


def test_a_change_that_rounds_to_nothing_is_not_written_as_a_fall():
    """The demo's report wrote the length term's change of contribution as "-0.000"."""
    from aquarelle.eval.report import _fmt

    assert [_fmt(x) for x in (-0.0001, -0.0, 0.0004, -0.0006, -10.0)] == ["0.000", "0.000", "0.000", "-0.001", "-10.000"]
    assert _fmt([-0.0002, 0.5]) == "0.000 &rarr; 0.500"


def _held(page: str) -> str:
    return page.split('id="held-out"')[1].split("<h2")[0]


def test_the_held_out_gallery_shows_the_samples_eval_json_was_computed_from(tmp_path):
    """The gallery read RUN/eval_samples.jsonl, not eval.json's ``sampling.source``: after `eval --samples-file`
    it said "No held-out paintings were sampled." under a verdict on those samples, or showed another file's
    paintings beside numbers that are not theirs. A source that is gone or changed is said, not replaced."""
    import json

    from aquarelle.eval.report import build

    run = make_run(tmp_path / "run", steps=3)
    ext = tmp_path / "ext.jsonl"  # images stay under run/eval/, as eval's own samples' do
    make_samples(run, trained=Synth(judge=(0.8, 0.8), gate_fail=(0, 0)),
                 start=Synth(judge=(0.2, 0.2), gate_fail=(0, 0)), prompts=HELDOUT_PROMPTS, split="heldout").rename(ext)
    write(run, evaluate(run, samples_file=ext, progress=False))
    held = _held(build(run))
    assert "No held-out paintings were sampled." not in held
    assert "a sailing boat at sunset" in held and held.count('class="painting"') == 4  # 2 prompts x trained, start
    # another sampling left as the run's eval_samples.jsonl is not what eval.json measured
    make_samples(run, trained=Synth(judge=(0.1, 0.1)), start=Synth(judge=(0.9, 0.9)),
                 prompts=[("h-decoy", "a decoy prompt")], split="heldout", k=4)
    held = _held(build(run))
    assert "a decoy prompt" not in held and "a sailing boat at sunset" in held
    rows = [json.loads(x) for x in ext.read_text().splitlines()]
    rows[0]["reward"] -= 0.3  # as many samples, another trained mean
    ext.write_text("".join(json.dumps(r) + "\n" for r in rows))
    held = _held(build(run))
    assert "has changed since eval.json was written" in held and 'class="painting"' not in held
    assert "a decoy prompt" not in held
    ext.unlink()
    held = _held(build(run))
    assert f"their samples file {ext} is gone" in held and 'class="painting"' not in held
    # one sample unscored: its prompt has fewer, and eval.json's reward weighs prompts alike (a pooled mean of the
    # same rows differs): still the same samples, shown
    rows[0]["reward"] += 0.3
    rows[1]["reward"] = None
    ext.write_text("".join(json.dumps(r) + "\n" for r in rows))
    write(run, evaluate(run, samples_file=ext, progress=False))
    held = _held(build(run))
    assert "has changed" not in held and held.count('class="painting"') == 4


def test_the_held_out_gallery_leaves_out_the_samples_the_held_out_numbers_leave_out(evaluated_run, tmp_path):
    """eval leaves held-out samples on prompts the run trained on out of the held-out numbers
    (``heldout.trained_on``); the gallery showed them still."""
    import json
    import shutil

    from aquarelle.eval.report import build

    run = Path(shutil.copytree(evaluated_run, tmp_path / "run"))
    ev = json.loads((run / "eval.json").read_text())
    ev["heldout"]["trained_on"] = ["a sailing boat at sunset"]
    (run / "eval.json").write_text(json.dumps(ev))
    held = _held(build(run))
    assert "a sailing boat at sunset" not in held and "lemons in a blue bowl" in held


def test_a_report_without_eval_json_shows_no_out_of_date_samples_and_says_why(tmp_path):
    """With no eval.json the page said "Not measured: no held-out samples" and "0 samples" above eight prompts
    of an eval_samples.jsonl older than the run's training (which eval does not use), and its own "no eval.json
    yet" replaced the reason they were not used."""
    import os

    from aquarelle.eval.report import build

    run = make_run(tmp_path / "run", steps=3)
    samples = make_samples(run, trained=Synth(judge=(0.8, 0.8), gate_fail=(0, 0)),
                           start=Synth(judge=(0.2, 0.2), gate_fail=(0, 0)), prompts=HELDOUT_PROMPTS, split="heldout")
    os.utime(samples, (1_577_836_800, 1_577_836_800))  # 2020: before metrics.jsonl
    page = build(run)
    held = _held(page)
    assert 'class="painting"' not in held and "a sailing boat at sunset" not in held
    assert "No held-out paintings were sampled." in held
    assert "predates the run&#x27;s last training, so it is not used" in held and "no eval.json yet" in held
    assert not (run / "eval.json").exists()
    os.utime(samples)  # now: of the run's last policy, so the rebuilt numbers and the gallery both use them
    held = _held(build(run))
    assert "a sailing boat at sunset" in held and held.count('class="painting"') == 4
    assert "rebuilt with the last sampling&#x27;s paintings" in held


def test_long_unbroken_text_stays_inside_its_box(browser, tmp_path):
    """A 5000-character prompt without spaces ran out of its gallery card across the page, as did a long method
    name in the tool tables and a long run folder name in the title."""
    import json

    run = make_run(tmp_path / ("r" * 200), steps=3)
    rows = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    rows[0]["prompt"] = "A" * 5000
    rows[1]["methods"]["paint" + "X" * 3000] = 1
    rows[1]["errors"] = ["E" * 3000 + " is not in the hf10 action space"]
    (run / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    make_samples(run, trained=Synth(gate_fail=(0, 0)), start=Synth(gate_fail=(0, 0)),
                 prompts=[("h-long", "B" * 5000)], split="heldout", k=2)
    write(run, evaluate(run, samples_file=run / "eval_samples.jsonl", progress=False))
    out = write_report(run, tmp_path / "report.html")
    problems, _, page = open_page(browser, out)
    over = page.evaluate("""Array.from(document.querySelectorAll('body *')).filter(e => e.clientWidth > 0
        && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible')
        .map(e => e.tagName + '.' + e.className)""")
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    page.close()
    assert problems == []
    assert over == [] and wide <= 0, (over, wide)


def test_the_policy_bars_legend_hides_no_bar(monkeypatch):
    """With a trained reward of 0.7-0.8 the legend sat on top of the trained bar."""
    from aquarelle.eval import plots

    figs = []
    monkeypatch.setattr(plots, "_png", lambda fig: figs.append(fig) or b"")
    for high in (0.72, 0.8, 0.98):
        s = {"reward": high, "judge": high, "preference": high}
        plots.policy_bars({"trained (held-out)": s, "start (held-out)": {k: 0.2 for k in s},
                           "trained (training prompts)": s}, "trained vs starting policy")
    for fig in figs:
        fig.canvas.draw()
        ax = fig.axes[0]
        legend = ax.get_legend().get_window_extent()
        bars = [b.get_window_extent() for b in ax.patches if b.get_height() > 0]
        assert len(bars) == 9
        assert not any(legend.overlaps(b) for b in bars)
        assert all(ax.bbox.y1 >= b.y1 for b in bars)  # each bar whole inside the axes


def test_a_gallery_card_says_why_a_painting_scored_nothing():
    """Every card of a run whose rollouts all failed read "no image · reward 0.00 · judge n/a": the syntax error or
    the refusal behind the 0, which the rollout records, was nowhere on the page."""
    from aquarelle.eval.report import _why_not_scored
    from aquarelle.eval.run import Rollout

    base = {"step": 1, "prompt": "a boat", "code": "", "breakdown": {"gate": 0.0, "length": 0.0}}
    failed = Rollout.from_dict({**base, "reward": 0.0, "errors": ["syntax error: line 19: Unexpected token '}'"]})
    assert _why_not_scored(failed) == "syntax error: line 19: Unexpected token '}'"
    down = Rollout.from_dict({**base, "reward": None, "errors": ["infrastructure: judge: connection refused"]})
    assert _why_not_scored(down) == "unscored: infrastructure: judge: connection refused"
    fine = Rollout.from_dict({**base, "reward": 0.4, "breakdown": {"gate": 1.0}, "errors": []})
    assert _why_not_scored(fine) is None
    # a tools painting under the gate has no error: the gate's reason is in its feedback
    empty = Rollout.from_dict({**base, "reward": 0.0, "errors": [], "feedback": "Finished. Reward 0.000 (gate 0.00, "
                               "length 0.00). Gate failed: nothing painted: the program has no drawing call"})
    assert _why_not_scored(empty) == "Gate failed: nothing painted: the program has no drawing call"


def test_the_report_shows_the_reason_on_a_failed_paintings_card(tmp_path):
    import json

    from aquarelle.eval.report import build

    run = make_run(tmp_path / "r", steps=3)
    lines = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    for r in lines:  # every painting failed the gate, as a policy that never writes a valid sketch
        r.update(reward=0.0, image=None, errors=["unknown brush method(s): middle <b>"],
                 breakdown={"gate": 0.0, "length": 0.0, "judge": None, "preference": None})
    (run / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    page = build(run)
    assert '<span class="why">unknown brush method(s): middle &lt;b&gt;</span>' in page


def test_report_writes_into_the_run_by_default(evaluated_run, tmp_path, monkeypatch):
    """The default was ./report.html: reporting two runs from one folder replaced the first's page unsaid, while
    `demo` writes RUN/report.html."""
    from typer.testing import CliRunner

    from aquarelle.cli import app

    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["report", str(evaluated_run)])
    assert res.exit_code == 0, res.output
    assert (evaluated_run / "report.html").is_file() and not (tmp_path / "report.html").exists()
    assert str((evaluated_run / "report.html").resolve()) in res.output
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nope")])
    assert res.exit_code == 1 and "nope" in res.output and "does not exist" in res.output, res.output


def test_the_report_says_a_run_has_not_finished_and_was_resumed(tmp_path):
    """A run stopped at step 3 of 6 read "4 steps · 8 rollouts" with no word that it had not finished, and a
    resumed run's report said nothing of its resumes."""
    import json

    from aquarelle.eval.report import build

    run = make_run(tmp_path / "run", steps=3)
    (run / "checkpoints" / "checkpoint-2").mkdir(parents=True)
    (run / "checkpoints" / "checkpoint-10").mkdir()
    for odd in ("checkpoint-final", "checkpoint-\u00b2", "checkpoint-99.bak"):  # not step checkpoints
        (run / "checkpoints" / odd).mkdir()
    page = build(run)
    assert ('<p class="status">Training has not finished (still running, or stopped): no summary.json yet; 3 steps '
            'so far of optim.max_steps 3, the last checkpoint checkpoint-10') in page
    cfg = json.loads((run / "config.json").read_text())
    cfg["resumes"] = [{"from": "checkpoint-2", "started": "2026-12-06T20:00:00"}]
    (run / "config.json").write_text(json.dumps(cfg))
    (run / "summary.json").write_text(json.dumps({"steps": 3}))
    page = build(run)
    assert "Training has not finished" not in page
    assert "Resumed 1 time (from checkpoint-2)" in page
    cfg.pop("resumes")
    (run / "config.json").write_text(json.dumps(cfg))
    assert 'class="status"' not in build(run)


def test_long_runs_curves_are_rolling_means():
    """At 500-2,000 steps a marker on every step made solid bands (the diversity curve's "across prompts" hid
    "within a group")."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from aquarelle.eval import plots

    fig, ax = plt.subplots()
    plots._line(ax, list(range(1, 51)), [0.5] * 50, label="short")
    assert [ln.get_marker() for ln in ax.lines] == ["o"] and ax.lines[0].get_label() == "short"
    fig, ax = plt.subplots()
    plots._line(ax, list(range(1, 501)), [0.5 + (i % 2) * 0.2 for i in range(500)], color="k", label="long")
    faint, smooth = ax.lines
    assert faint.get_alpha() == 0.25 and len(faint.get_xdata()) == 500
    assert smooth.get_label() == "long (mean of 10 steps)" and len(smooth.get_xdata()) == 491
    assert max(abs(y - 0.6) for y in smooth.get_ydata()) < 0.011  # the alternation averaged out
    plt.close("all")
