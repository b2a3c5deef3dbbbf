"""`aquarelle check` as a user runs it: exit codes, one-line stderr, --json lines, program JSON files."""

import json
import subprocess
import sys
from pathlib import Path

from aquarelle.brush import Program, validate

ROOT = Path(__file__).parent.parent
SKETCHES = Path(__file__).parent / "sketches"


def check(*args):
    cmd = [sys.executable, "-m", "aquarelle.cli", "check", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_clean_sketches_exit_zero_with_summary():
    r = check(SKETCHES / "flower_basic.js", *sorted((ROOT / "examples").glob("*.js")))
    assert r.returncode == 0, r.stderr
    # 26 commands: its randomSeed(7) after background() reseeds p5.brush, so it is recorded as a seed command
    assert "flower_basic.js: ok  26 commands, 7 shapes, 4 colours, 600x600" in r.stdout
    assert r.stderr == ""


def test_json_lines_and_rejections(tmp_path):
    bad = tmp_path / "bad.js"
    bad.write_text("async function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { ellipse(1, 2, 3); }\n")
    broken = tmp_path / "broken.js"
    broken.write_text("async function setup( {")
    r = check("--json", SKETCHES / "flower_basic.js", bad, broken, tmp_path / "missing.js")
    assert r.returncode == 1
    rows = [json.loads(line) for line in r.stdout.splitlines()]  # stdout is only JSON
    assert [row["ok"] for row in rows] == [True, False, False, False]
    assert set(rows[0]) >= {"sketch", "ok", "reason", "violations", "summary", "ms"}
    assert rows[0]["summary"]["commands"] == 26 and rows[0]["ms"] > 0  # its randomSeed(7) is a seed command
    assert rows[1]["violations"] == ["bare p5 drawing ellipse() (only brush.* paints; not allowed)"]
    assert rows[2]["reason"].startswith("syntax error: line 1: SyntaxError")
    err = r.stderr.strip().splitlines()
    assert len(err) == 3 and "Traceback" not in r.stderr
    assert err[0] == f"{bad}: bare p5 drawing ellipse() (only brush.* paints; not allowed)"
    assert err[2] == f"{tmp_path / 'missing.js'}: no such file"  # as render and score say it


def test_action_space_option():
    study = ROOT / "examples" / "study.js"
    r = check("--action-space", "hf10", study)
    assert r.returncode == 1
    assert "is not in the hf10 action space" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = check("--action-space", "bogus", study)
    assert r.returncode == 2 and "unknown action space 'bogus'" in r.stderr and "Traceback" not in r.stderr


def test_program_json_files(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(Program(commands=[validate("fill", ["red"]), validate("circle", [1, 2, 3])]).dumps())
    outside = tmp_path / "outside.json"
    outside.write_text(Program(commands=[validate("hatch", [5, 45])]).dumps())
    invalid = tmp_path / "invalid.json"
    invalid.write_text('{"commands": [{"method": "circle", "args": [1, 2]}]}')
    r = check("--json", "--action-space", "hf10", good, outside, invalid)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["ok"] for row in rows] == [True, False, False]
    assert rows[0]["summary"]["shapes"] == 1
    assert rows[1]["violations"] == ["brush.hatch() is not in the hf10 action space"]
    assert rows[2]["reason"] == "circle: missing argument 'r' (circle(x, y, r, irregularity=0))"
    assert r.returncode == 1 and "Traceback" not in r.stderr


def test_a_usage_mistake_is_one_line_naming_it():
    """typer answered an unknown flag or a value of the wrong type with a five-line box; every other bad input
    is one line."""
    for args, needle in ((["render", "--size", "abc", "x.js"], "'--size'"), (["render"], "Missing argument 'sketch'"),
                         (["check", "--bogus", "x.js"], "No such option: --bogus"), (["paintt"], "No such command")):
        r = subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, timeout=120,
                           cwd=ROOT)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1 and needle in r.stderr, (args, r.stderr)
        assert "--help` for usage" in r.stderr
    r = subprocess.run([sys.executable, "-m", "aquarelle.cli"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2 and "Usage:" in r.stdout and "render" in r.stdout  # no command: the help, as before


def test_inputs_are_read_bounded_and_a_huge_number_is_one_line(tmp_path):
    """check read /dev/zero whole before its 256 KiB source limit applied (a hang, 520 MB); a program JSON holding a
    5000-digit integer was a traceback (render's line told the user to call sys.set_int_max_str_digits())."""
    big = tmp_path / "big.js"
    big.write_bytes(b"// " + b"x" * (300 * 1024))
    binary = tmp_path / "binary.js"
    binary.write_bytes(b"\xff\xfe garbage")
    huge = tmp_path / "huge.json"
    huge.write_text('{"commands":[{"method":"circle","args":[' + "9" * 5000 + ",300,100]}]}")
    r = check("--json", "/dev/zero", big, binary, huge)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(row["reason"], row["limit"]) for row in rows] == [
        ("cannot read: it is not a regular file", None),
        (f"source limit: the sketch is {big.stat().st_size} bytes (at most 262144)", "source"),
        ("cannot read: not UTF-8 text ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)",
         None),
        ("program JSON holds a number too large (5000 digits) at line 1 column 41", None)]
    assert len(r.stderr.strip().splitlines()) == 4


def test_check_says_when_render_will_refuse_a_program_before_painting_it(tmp_path):
    """check passed 19,990 fills and 200,000 painting calls that render then refused: the counts render refuses
    before it paints (``render.precheck``) are check's too, in render's words."""
    fills = tmp_path / "fills.json"
    fills.write_text(Program.from_calls([("fill", ["#d7263d", 150])] + [("circle", [100, 100, 50])] * 601).dumps())
    sketch = tmp_path / "fills.js"
    sketch.write_text("function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { brush.fill('#d7263d', 150);"
                      " for (let i = 0; i < 601; i++) brush.circle(100, 100, 50); }\n")
    fine = tmp_path / "fine.json"
    fine.write_text(Program.from_calls([("fill", ["#d7263d", 150])] + [("circle", [100, 100, 50])] * 600).dumps())
    r = check("--json", fills, sketch, fine)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert r.returncode == 1 and [row["ok"] for row in rows] == [False, False, True]
    want = "render: program is over the render budget: 601 watercolour fills (at most 600)"
    assert rows[0]["reason"] == rows[1]["reason"] == want and rows[0]["summary"] is not None
    assert r.stderr.strip().splitlines() == [f"{fills}: {want}", f"{sketch}: {want}"]


def test_a_command_whose_extra_is_not_installed_says_which_in_one_line(tmp_path):
    """Installed without the train extra, `paint`, `sft` and `train` ended in a 48-line traceback ("No module named
    'torch'"). The modules are blocked in the process (``sys.modules[m] = None``), as an install without them has."""
    import os

    code = ("import sys\nfor m in ('torch', 'transformers', 'trl', 'peft', 'accelerate', 'datasets'): sys.modules[m] = None\n"
            "sys.argv = ['aquarelle'] + sys.argv[1:]\nfrom aquarelle.cli import main\nmain()")
    for args in (["paint", "tiny", "a cat", "-o", str(tmp_path / "x.png")], ["sft", "--model", "tiny", "--out", str(tmp_path / "s")]):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert r.returncode == 2, r.stderr[-2000:]
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("error: this command needs the train extra (no module ") and "Traceback" not in r.stderr


def test_a_hatch_with_nothing_to_draw_its_lines_is_refused_as_render_refuses_it(tmp_path):
    """p5.brush throws at the first line of a hatch with no brush or colour (no hatchStyle, no stroke), so render
    refuses it; check passed it. Whether the hatch has a line depends on the shape (a 2 px rect at spacing 50 has
    none, and paints): check renders just these programs to find out."""
    def program(name, cmds):
        path = tmp_path / f"{name}.json"
        path.write_text(Program(commands=[validate(m, a) for m, a in cmds]).dumps())
        return path

    bare = program("bare", [("noStroke", []), ("hatch", [5, 45]), ("rect", [100, 100, 300, 300])])
    none = program("none", [("noStroke", []), ("hatch", [50, 45]), ("rect", [100, 100, 2, 2])])
    styled = program("styled", [("hatch", [5, 45]), ("hatchStyle", ["HB", "red"]), ("noStroke", []),
                                ("rect", [100, 100, 300, 300])])
    r = check("--json", bare, none, styled)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["ok"] for row in rows] == [False, True, True], rows
    assert rows[0]["reason"].startswith("render: hatch: no brush or colour set for its lines"), rows[0]
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    for path, code in ((bare, 1), (none, 0), (styled, 0)):  # as render decides
        out = tmp_path / f"{path.stem}.png"
        assert subprocess.run([sys.executable, "-m", "aquarelle.cli", "render", str(path), "-o", str(out)],
                              capture_output=True, text=True, timeout=120, cwd=ROOT).returncode == code, path
