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



_BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "package.json", "package-lock.json")


def _build_tree(tmp_path: Path, node_modules: Path | None) -> Path:
    """A copy of the checkout's build inputs, so the checkout gets no build/ of its own from a test."""
    import shutil

    repo = Path(__file__).resolve().parents[1]
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in _BUILD_INPUTS:
        if (repo / name).is_file():
            shutil.copy(repo / name, tree)
    shutil.copytree(repo / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "_bundled"))
    shutil.copytree(repo / "pool", tree / "pool")  # images/ too, where the checkout has rendered it: never shipped
    if node_modules is not None:
        (tree / "node_modules").symlink_to(node_modules)
    return tree


def _pip_wheel(tree: Path, dist: Path) -> tuple[Path, str]:
    """(the wheel, pip's verbose log) as `pip wheel --no-deps .` builds it, offline (no build isolation)."""
    import sys

    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "--no-index",
                        "-w", str(dist), str(tree)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (wheel,) = dist.glob("aquarelle-*.whl")
    return wheel, r.stdout + r.stderr


@pytest.mark.slow
def test_a_wheel_carries_the_pool_and_the_pinned_js_and_finds_them_outside_a_checkout(tmp_path, monkeypatch):
    """A wheel held no pool/ and no p5 or p5.brush (they live beside src/ in a checkout): installed and run outside
    a checkout, the judge had no references ("no pool at ./pool/pool.json"), training no default prompts ("prompt
    file .../lib/python3.11/pool/prompts.json does not exist") and `export -o x.html` no libraries ("p5 and
    p5.brush are not installed")."""
    import json
    import os
    import sys
    import zipfile

    from aquarelle.brush.export import _inline_script
    from aquarelle.render.browser import BRUSH_FILE, P5_FILE, find_node_modules

    monkeypatch.delenv("AQUARELLE_NODE_MODULES", raising=False)
    nm = find_node_modules()  # the checkout's (make setup runs npm ci)
    repo_pool = Path(__file__).resolve().parents[1] / "pool"
    wheel, _ = _pip_wheel(_build_tree(tmp_path, nm), tmp_path / "dist")
    names = set(zipfile.ZipFile(wheel).namelist())
    sketches = sorted(f.name for f in (repo_pool / "sketches").glob("*.js"))
    want = {"pool/pool.json", "pool/prompts.json", "pool/README.md", *(f"pool/sketches/{s}" for s in sketches),
            "node_modules/" + "/".join(P5_FILE), "node_modules/" + "/".join(BRUSH_FILE),
            "node_modules/p5/license.txt", "node_modules/p5.brush/LICENSE.md"}
    assert sorted(w for w in want if f"aquarelle/_bundled/{w}" not in names) == []
    assert not [n for n in names if "/images/" in n]  # never the pool's render cache

    site, cwd = tmp_path / "site", tmp_path / "elsewhere"
    zipfile.ZipFile(wheel).extractall(site)  # a pure wheel's install is its files on the path
    cwd.mkdir()
    (cwd / "s.js").write_text((repo_pool / "sketches" / sketches[0]).read_text())
    env = {k: v for k, v in os.environ.items() if k not in ("AQUARELLE_POOL", "AQUARELLE_NODE_MODULES")}
    env.update(PYTHONPATH=str(site), AQUARELLE_CACHE=str(tmp_path / "cache"))
    probe = ("import json, sys, aquarelle\n"
             "from aquarelle.rewards.pool import Pool, default_pool_dir\n"
             "from aquarelle.render.browser import find_node_modules\n"
             "from aquarelle.train.data import load_prompts, prompt_file\n"
             "pool = Pool()\n"
             "print(json.dumps({'package': aquarelle.__file__, 'pool': str(default_pool_dir()), 'paintings': len(pool),"
             " 'refs': len(pool.sample_references(0)), 'node_modules': str(find_node_modules()),"
             " 'prompts': str(prompt_file(None)), 'n_prompts': len(load_prompts(None, 'all'))}))\n"
             "sys.argv = ['aquarelle', 'export', 's.js', '-o', 'out.html']\n"
             "from aquarelle.cli import main\n"
             "main()\n")
    r = subprocess.run([sys.executable, "-c", probe], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    got = json.loads(r.stdout.splitlines()[0])
    bundled = site / "aquarelle" / "_bundled"
    assert got["package"] == str(site / "aquarelle" / "__init__.py")
    assert (got["pool"], got["node_modules"]) == (str(bundled / "pool"), str(bundled / "node_modules"))
    assert got["prompts"] == str(bundled / "pool" / "prompts.json") and got["n_prompts"] > 0
    assert got["paintings"] == len(sketches) and got["refs"] == 4
    html = (cwd / "out.html").read_text(encoding="utf-8")
    for f in (P5_FILE, BRUSH_FILE):
        assert _inline_script(nm.joinpath(*f).read_text(encoding="utf-8")) in html


@pytest.mark.slow
def test_a_wheel_built_without_node_modules_says_so_and_keeps_no_old_copy(tmp_path, monkeypatch):
    """Without `npm ci` the wheel is built with the pool and without p5 and
    p5.brush, and the build says so; a build/ kept from a build that had them does not slip the old copies in."""
    import zipfile

    from aquarelle.render.browser import find_node_modules

    monkeypatch.delenv("AQUARELLE_NODE_MODULES", raising=False)
    tree = _build_tree(tmp_path, find_node_modules())
    _pip_wheel(tree, tmp_path / "with")[0].unlink()
    (tree / "node_modules").unlink()  # the same tree, its build/ kept, now without node_modules
    wheel, log = _pip_wheel(tree, tmp_path / "without")
    assert "aquarelle build: node_modules/p5 is missing (run `npm ci`): this wheel carries no p5 and p5.brush" in log
    names = zipfile.ZipFile(wheel).namelist()
    assert "aquarelle/_bundled/pool/pool.json" in names
    assert not [n for n in names if "node_modules" in n]
