"""What an installed wheel carries besides the code: the reference pool and the pinned p5 + p5.brush.

setup.py's build_py copies them into ``aquarelle/_bundled/`` when a wheel is built; a checkout has no such folder
and reads its own ``pool/`` and ``node_modules``. The lookups (``rewards.pool.default_pool_dir``,
``render.browser.find_node_modules``, ``train.data.prompt_file``) come here last, after the variables and the
checkout's copies.
"""

from __future__ import annotations

import os
from pathlib import Path

BUNDLED = Path(__file__).resolve().parent / "_bundled"


def bundled_pool() -> Path | None:
    """The pool the wheel carries, or None (a checkout, or a wheel built without it)."""
    p = BUNDLED / "pool"
    return p if (p / "pool.json").is_file() else None


def bundled_node_modules() -> Path:
    """Where the wheel's p5 and p5.brush are (the folder may be missing: a wheel built without ``npm ci``)."""
    return BUNDLED / "node_modules"


def is_bundled(path: Path) -> bool:
    """Whether ``path`` is inside the installed package's bundled data (never written to: site-packages)."""
    try:
        path.resolve().relative_to(BUNDLED.resolve())
    except ValueError:
        return False
    return True


def user_cache_dir() -> Path:
    """``$AQUARELLE_CACHE``, else ~/.cache/aquarelle (not made here)."""
    return Path(os.environ.get("AQUARELLE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "aquarelle"))
