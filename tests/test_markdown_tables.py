"""The repository's Markdown tables keep every cell visible: GitHub's table rule drops a row's cells past the header's
count, so a row with one cell too many (an unescaped ``|`` in a code span or in ``|log ratio|``, or a fourth column
in a three-column table) silently lost its last column, the tests it named (RELIABILITY.md held ten such rows)."""

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
_SEP = re.compile(r"^\|( *:?-+:? *\|)+\s*$")
_CELL = re.compile(r"(?<!\\)\|")


def _bad_rows(text: str) -> list[tuple[int, int, int]]:
    """(line, header cells, row cells) for each table row whose cell count is not its header's."""
    bad, ncols = [], None
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        if _SEP.match(line):
            ncols = line.count("|") - 1
            header = len(_CELL.split(lines[i - 2])[1:-1]) if i >= 2 else ncols
            if header != ncols:
                bad.append((i - 1, ncols, header))
            continue
        if not line.startswith("|"):
            ncols = None
            continue
        if ncols is not None:
            cells = len(_CELL.split(line.rstrip())[1:-1])
            if cells != ncols:
                bad.append((i, ncols, cells))
    return bad


def test_the_table_check_sees_a_cell_too_many():
    good = "| a | b |\n|---|---|\n| `x \\| y` | 1 |\n"
    assert _bad_rows(good) == []
    assert _bad_rows("| a | b |\n|---|---|\n| `x | y` | 1 |\n") == [(3, 2, 3)]
    assert _bad_rows("| a | b |\n|---|---|\n| one | two | tests |\n") == [(3, 2, 3)]


def test_every_markdown_table_row_has_its_headers_cells():
    files = [p for p in ROOT.rglob("*.md") if not {"node_modules", ".venv", ".git"} & set(p.relative_to(ROOT).parts)]
    assert any(p.name == "RELIABILITY.md" for p in files)
    bad = {str(p.relative_to(ROOT)): rows for p in files if (rows := _bad_rows(p.read_text(encoding="utf-8")))}
    assert bad == {}, bad
