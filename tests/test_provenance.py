"""What a run and an eval record of the code that made them (aquarelle.provenance)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aquarelle import provenance


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=repo, check=True,
                   capture_output=True)


def test_git_state_tells_edited_sources_apart_from_their_commit(tmp_path, monkeypatch):
    """Two runs from one commit, one with uncommitted edits to the package, recorded the same commit and nothing
    else: their different paintings could not be traced to the code."""
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "mod.py").write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "one")
    monkeypatch.setattr(provenance, "_PACKAGE_DIR", pkg)
    clean = provenance.git_state()
    assert len(clean["git_commit"]) == 40 and clean["git_dirty"] is False and clean["git_diff_sha1"] is None
    (tmp_path / "notes.txt").write_text("outside the package: not its code\n")
    assert provenance.git_state() == clean
    (pkg / "mod.py").write_text("x = 2\n")
    edited = provenance.git_state()
    assert edited["git_dirty"] is True and edited["git_commit"] == clean["git_commit"]
    (pkg / "mod.py").write_text("x = 3\n")
    assert provenance.git_state()["git_diff_sha1"] not in (None, edited["git_diff_sha1"])
    (pkg / "mod.py").write_text("x = 1\n")
    (pkg / "new.py").write_text("y = 1\n")  # a new module counts too
    assert provenance.git_state()["git_dirty"] is True


def test_outside_a_checkout_the_git_state_is_unknown_not_clean(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "_PACKAGE_DIR", tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert provenance.git_state() == {"git_commit": None, "git_dirty": None, "git_diff_sha1": None}


@pytest.mark.parametrize("name", ["numba", "scipy", "pillow", "mini-racer", "torch", "trl"])
def test_the_packages_that_decide_pixels_and_rewards_are_recorded(name):
    assert provenance.package_versions()[name]


def test_the_browser_renderers_js_libraries_are_recorded_from_the_checkout():
    v = provenance.package_versions()  # (make setup installs node_modules, as the browser tests need)
    assert v["npm:p5.brush"] == "2.2.2" and v["npm:p5"] == "2.3.4"
