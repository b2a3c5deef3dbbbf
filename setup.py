"""The one packaging step pyproject.toml cannot say: a wheel carries the reference pool and the pinned p5 + p5.brush.

Why: they live beside src/ in the checkout (pool/ is the hand-rated data, node_modules/ is npm's), so a wheel
without them could not score with the judge, read the default prompts or export HTML outside a checkout. build_py
copies them into aquarelle/_bundled/ (see aquarelle/bundled.py); the lookups take that copy only when neither the
variable (AQUARELLE_POOL, AQUARELLE_NODE_MODULES) nor the checkout's own pool/ or node_modules is there. An
editable install (make setup) copies nothing: it reads the checkout's. Without node_modules (no `npm ci`) the
wheel is built without p5 and p5.brush, and the build says so. (The Dockerfile copies no setup.py: its image
installs the package alone and reads the pool it copies to its working directory.)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: The pool as the package carries it: ratings, prompts, sketches and the README; never the render cache (images/).
POOL_FILES = ("README.md", "pool.json", "prompts.json", "sketches/*.js")
#: What the HTML export and the browser renderer read (render.browser P5_FILE / BRUSH_FILE), each package's
#: package.json (its version is checked against the pins) and licence (p5: LGPL-2.1, p5.brush: MIT).
JS_FILES = {"p5": ("package.json", "license.txt", "lib/p5.min.js"),
            "p5.brush": ("package.json", "LICENSE.md", "dist/p5.brush.js")}


def _say(msg: str) -> None:
    print(f"aquarelle build: {msg}", file=sys.stderr)


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def _bundle(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)  # a reused build/ kept the last build's files
    for pattern in POOL_FILES:
        found = sorted((ROOT / "pool").glob(pattern))
        if not found:
            raise SystemExit(f"aquarelle build: pool/{pattern} is missing: the wheel would carry no reference pool")
        for f in found:
            _copy(f, out / "pool" / f.relative_to(ROOT / "pool"))
    nm = ROOT / "node_modules"
    why = None
    try:  # the pins: npm's package.json beside this file
        pins = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    except (OSError, ValueError, KeyError):
        pins, why = {}, "package.json (the p5 and p5.brush pins) is missing"
    for name, files in JS_FILES.items() if pins else ():
        try:
            version = json.loads((nm / name / "package.json").read_text(encoding="utf-8"))["version"]
        except (OSError, ValueError, KeyError):
            why = f"node_modules/{name} is missing"
            break
        if version != pins.get(name):
            why = f"node_modules holds {name} {version}, not the pinned {pins.get(name)}"
            break
        if not all((nm / name / f).is_file() for f in files):
            why = f"node_modules/{name} lacks one of {', '.join(files)}"
            break
    if why:
        shutil.rmtree(out / "node_modules", ignore_errors=True)
        _say(f"{why} (run `npm ci`): this wheel carries no p5 and p5.brush, so HTML export and the browser "
             "renderer need AQUARELLE_NODE_MODULES where it is installed")
        return
    for name, files in JS_FILES.items():
        for f in files:
            _copy(nm / name / f, out / "node_modules" / name / f)


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):  # an editable install reads the checkout's own copies
            _bundle(Path(self.build_lib) / "aquarelle" / "_bundled")


setup(cmdclass={"build_py": BuildPyWithData})
