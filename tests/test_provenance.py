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
    (pkg / "__init__.py").write_text("")
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


def test_a_package_installed_inside_another_repository_is_not_given_its_commit(tmp_path, monkeypatch):
    """A wheel in a virtualenv inside some project's git checkout recorded that project's commit as aquarelle's,
    git_dirty False."""
    (tmp_path / "README").write_text("another project\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "theirs")
    pkg = tmp_path / ".venv" / "lib" / "site-packages" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    monkeypatch.setattr(provenance, "_PACKAGE_DIR", pkg)
    assert provenance.git_state() == {"git_commit": None, "git_dirty": None, "git_diff_sha1": None}


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


def test_a_node_modules_of_other_p5_versions_is_not_taken_for_the_pinned_ones(tmp_path, monkeypatch):
    """Run from a project whose own node_modules holds p5 1.11.3 and p5.brush 1.1.4, `export` wrote a page that
    painted nothing (labelled p5.brush 2.2.2), the browser backend failed "p5.registerAddon is not a function", and
    provenance recorded the checkout's versions."""
    import json

    from aquarelle.render.browser import BrowserError, find_node_modules

    theirs = tmp_path / "node_modules"
    for name, ver, f in (("p5", "1.11.3", ("lib", "p5.min.js")), ("p5.brush", "1.1.4", ("dist", "p5.brush.js"))):
        (theirs / name).joinpath(*f[:-1]).mkdir(parents=True)
        (theirs / name).joinpath(*f).write_text("// not the pinned library\n")
        (theirs / name / "package.json").write_text(json.dumps({"name": name, "version": ver}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AQUARELLE_NODE_MODULES", raising=False)
    assert find_node_modules() != theirs  # the checkout's pinned ones, beside the package
    assert provenance.package_versions()["npm:p5.brush"] == "2.2.2"
    monkeypatch.setenv("AQUARELLE_NODE_MODULES", str(theirs))
    with pytest.raises(BrowserError, match=r"holds p5 1\.11\.3 and p5\.brush 1\.1\.4, not the pinned 2\.3\.4 and 2\.2\.2"):
        find_node_modules()
    assert "npm:p5.brush" not in provenance.package_versions()
