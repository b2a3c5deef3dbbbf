"""The README's command list names only commands and flags that exist: a doc check, read against each ``--help``."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from aquarelle.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
SUBCOMMANDS = {"pool", "scorers"}  # groups whose first argument is itself a command


def _listed() -> list[tuple[list[str], list[str]]]:
    """(command words, flags) for each ``aquarelle ...`` in the README's command block."""
    text = README.read_text(encoding="utf-8")
    block = text.split("The main commands and flags", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    out = []
    for line in block.splitlines():
        line = line.split("  #", 1)[0]
        for part in re.split(r"\s\|\s(?=aquarelle )", line.strip()):
            words = part.split()
            if not words or words[0] != "aquarelle":
                continue
            cmd = words[1:2] + (words[2:3] if words[1] in SUBCOMMANDS else [])
            out.append((cmd, sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-o)\b", part)))))
    return out


def test_every_flag_the_readme_lists_is_in_its_commands_help():
    listed = _listed()
    assert len(listed) >= 15
    runner = CliRunner()
    missing = []
    for cmd, flags in listed:
        r = runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": "300"})
        assert r.exit_code == 0, (cmd, r.output)
        missing += [f"aquarelle {' '.join(cmd)} {f}" for f in flags if f not in r.output]
    assert not missing, f"README lists flags its commands do not have: {missing}"
