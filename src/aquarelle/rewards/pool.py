"""The reference pool: hand-rated p5.brush paintings (love / okay / reject) and the prompt sets.

``pool/pool.json`` lists each painting (id, subject, tier, why, hf10, split) and
its sketch under ``pool/sketches/``. Images are rendered on demand and cached
under ``pool/images/`` (git-ignored), keyed by a hash of the sketch source and the
render settings so an edited sketch is re-rendered; the pool an installed wheel carries,
or one that cannot be written, caches them under the user's cache instead
(``$AQUARELLE_CACHE``, else ~/.cache/aquarelle: ``pool-images/``). The ``heldout`` third never
informed the design of the local scorers; their accuracies are reported on it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Iterable, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from ..brush.sandbox import PROGRAM_VERSION
from ..render import NATIVE_LOOK
from .config import TIERS, RewardError, Tier  # noqa: F401 - TIERS and Tier are this module's names too
RENDER_SIZE = 600  # pool images are cached at the sketches' native size


def default_pool_dir() -> Path:
    """``$AQUARELLE_POOL``, else ``pool/`` at the repository root (next to ``src/``), else the cwd's, else the one
    an installed wheel carries (``aquarelle.bundled``): a wheel run outside a checkout had no pool and its judge
    no references."""
    env = os.environ.get("AQUARELLE_POOL")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[3] / "pool"
    if repo.is_dir():
        return repo
    here = Path.cwd() / "pool"
    if (here / "pool.json").is_file():
        return here
    from ..bundled import bundled_pool

    return bundled_pool() or here  # none: the cwd's is the one the error names


def pool_digest(root: str | Path | None = None) -> str | None:
    """A short digest of a pool's ratings (``pool.json``) and every painting's sketch, or None without a pool.

    Why: the judge's references are the pool's paintings, rendered from their sketches; an environment server
    whose pool differs from the run's (another ``AQUARELLE_POOL``, an older checkout) judges against other
    references, so a run compares this to refuse it (``scoring_differences``). The sandbox's ``PROGRAM_VERSION``
    is part of it: a server whose sandbox makes other programs of the same sketches paints other references."""
    base = Path(root) if root else default_pool_dir()
    index = base / "pool.json"
    if not index.is_file():
        return None
    h = hashlib.sha1(index.read_bytes() + f"|programs-v{PROGRAM_VERSION}".encode())
    sketches = base / "sketches"
    for f in sorted(sketches.glob("*.js")) if sketches.is_dir() else []:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


class PoolEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: a file stem: the sketch is sketches/ID.js and its render images/ID.png ("../../x" read and wrote outside the
    #: pool, "" was a traceback in `pool render`, "sub/x" escaped ``pool_digest``'s glob)
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    subject: str
    tier: Tier
    why: str
    hf10: StrictBool  # "yes" was read as true
    split: Literal["design", "heldout"]
    prompt: str = ""  # what the painting shows (used when it serves as a demonstration)


class PromptEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    subject: str
    prompt: str
    split: Literal["train", "heldout"]


def prompt_id_clash(rows: Iterable[tuple[str, str, str]]) -> str | None:
    """What is wrong when one id names two prompts, or one prompt in two splits, among ``(id, prompt, split)`` rows;
    None when nothing is. Eval, training and the pool key everything by id (GRPO groups, per-prompt means, the
    held-out split): two texts under one id were compared as one prompt, and an id both trained and held out leaks.
    The same row twice is no clash (it is weighed twice, as written)."""
    seen: dict[str, tuple[str, str]] = {}
    for pid, text, split in rows:
        if pid not in seen:
            seen[pid] = (text, split)
            continue
        t0, s0 = seen[pid]
        if t0 != text:
            return f"prompt id {_short(pid)} names two prompts ({_short(t0)} and {_short(text)}): ids must be unique"
        if s0 != split:
            return f"prompt id {_short(pid)} is in two splits ({s0} and {split}): a held-out prompt is never trained on"
    return None


def _short(s: str, n: int = 60) -> str:
    return repr(s if len(s) <= n else s[:n] + "...")


class PoolRenderError(RuntimeError):
    """A pool sketch could not be run or rendered (a broken reference is our fault, not the policy's)."""


class Pool:
    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root else default_pool_dir()
        path = self.root / "pool.json"
        if not path.is_file():
            raise RewardError(f"no pool at {path} (set AQUARELLE_POOL or pool_dir)")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:  # not JSON, not UTF-8
            raise RewardError(f"{path} is malformed: {str(e).splitlines()[0]}") from None
        if not isinstance(data, dict) or not isinstance(data.get("paintings"), list):
            raise RewardError(f"{path} has no 'paintings' list")
        self.entries = []
        for i, e in enumerate(data["paintings"]):
            if not isinstance(e, dict):
                raise RewardError(f"{path} is malformed: paintings[{i}] is not an object")
            try:
                self.entries.append(PoolEntry(**e))
            except ValidationError as err:
                first = err.errors()[0]
                raise RewardError(f"{path} is malformed: paintings[{i}] ({e.get('id')!r}): "
                                  f"{'.'.join(str(x) for x in first['loc']) or 'entry'}: {first['msg']}") from None
        self._by_id = {e.id: e for e in self.entries}
        if len(self._by_id) < len(self.entries):  # one sketch file per id: a second entry would re-rate the same one
            twice = next(i for i, n in Counter(e.id for e in self.entries).items() if n > 1)
            raise RewardError(f"{path} is malformed: painting id {twice!r} is listed twice")
        self._images: dict[tuple[str, int], np.ndarray] = {}

    # ---- lookup

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, pid: str) -> PoolEntry:
        if pid not in self._by_id:
            raise RewardError(f"no painting {pid!r} in the pool")
        return self._by_id[pid]

    def select(self, tier: str | None = None, split: str = "all", hf10: bool | None = None) -> list[PoolEntry]:
        return [e for e in self.entries if (tier is None or e.tier == tier)
                and (split == "all" or e.split == split) and (hf10 is None or e.hf10 == hf10)]

    def sketch_path(self, e: PoolEntry) -> Path:
        return self.root / "sketches" / f"{e.id}.js"

    def source(self, e: PoolEntry) -> str:
        """The entry's sketch, read as ``check`` reads one; a sketch that is not UTF-8 (or too big, or missing) is a
        PoolRenderError naming it, which ``pool validate`` and ``pool render`` print as one line, not a traceback."""
        from ..brush.files import InputError, read_input

        try:
            return read_input(self.sketch_path(e))
        except InputError as err:
            raise PoolRenderError(f"pool sketch {e.id}: {self.sketch_path(e)}: {err}") from None

    def prompts(self, split: str = "all") -> list[PromptEntry]:
        data = json.loads((self.root / "prompts.json").read_text(encoding="utf-8"))
        items = [PromptEntry(**p) for p in data["prompts"]]
        clash = prompt_id_clash((p.id, p.prompt, p.split) for p in items)
        if clash:
            raise RewardError(f"{self.root / 'prompts.json'}: {clash}")
        return [p for p in items if split == "all" or p.split == split]

    # ---- images

    def _key(self, e: PoolEntry, backend: str) -> str:
        h = hashlib.sha1(self.source(e).encode("utf-8"))
        look = NATIVE_LOOK if backend == "native" else 0  # a new native look redraws the cache
        h.update(f"|{backend}|{RENDER_SIZE}|hf10={e.hf10}|look={look}|program={PROGRAM_VERSION}".encode())
        return h.hexdigest()[:16]

    @functools.cached_property
    def images_dir(self) -> Path:
        """Where renders are cached: the pool's ``images/``, else (the pool an installed wheel carries, which lives
        in site-packages, or a pool that cannot be written) a folder of the user's cache for this pool. A read-only
        pool made every judged reward fail on its first render ("cannot cache the render of pool sketch ...")."""
        from ..bundled import is_bundled, user_cache_dir

        own = self.root / "images"
        if not is_bundled(self.root) and os.access(own if own.is_dir() else self.root, os.W_OK | os.X_OK):
            return own
        return user_cache_dir() / "pool-images" / hashlib.sha1(str(self.root.resolve()).encode()).hexdigest()[:12]

    def image_path(self, e: PoolEntry) -> Path:
        return self.images_dir / f"{e.id}.png"

    def cached(self, e: PoolEntry, backend: str = "native") -> bool:
        meta = self.image_path(e).with_suffix(".json")
        if not (self.image_path(e).is_file() and meta.is_file()):
            return False
        try:
            return json.loads(meta.read_text()).get("key") == self._key(e, backend)
        except ValueError:
            return False

    def render(self, e: PoolEntry, *, backend: str = "native", force: bool = False) -> tuple[np.ndarray, bool]:
        """(image, freshly_rendered); renders through the sandbox + renderer and caches the PNG."""
        from .imageio import load_png, save_png

        if not self.sketch_path(e).is_file():  # a broken pool: one line naming the entry, not a traceback
            raise PoolRenderError(f"pool sketch {e.id}: no sketch file at {self.sketch_path(e)}")
        if not force and self.cached(e, backend):
            return load_png(self.image_path(e)), False
        from ..brush.sandbox import run_sketch
        from ..render import render_program

        res = run_sketch(self.source(e), action_space="hf10" if e.hf10 else "full")
        if not res.ok or res.program is None:
            raise PoolRenderError(f"pool sketch {e.id}: {res.reason}")
        try:
            img = render_program(res.program, backend=backend)
        except ValueError as err:  # RenderError: a broken reference
            raise PoolRenderError(f"pool sketch {e.id}: {err}") from None
        self.image_path(e).parent.mkdir(parents=True, exist_ok=True)
        save_png(img, self.image_path(e))
        self.image_path(e).with_suffix(".json").write_text(json.dumps(
            {"key": self._key(e, backend), "backend": backend, "sketch_ms": res.ms,
             "commands": len(res.program.commands)}))
        return img, True

    def image(self, e: PoolEntry, size: int | None = None) -> np.ndarray:
        """The cached render (rendered now if missing), optionally resized; memoised."""
        key = (e.id, size or 0)
        if key not in self._images:
            img, _ = self.render(e)
            if size:
                from .imageio import resize

                img = resize(img, size)
            self._images[key] = img
        return self._images[key]

    # ---- references

    def sample_references(self, group_seed: int, counts: dict[str, int] | None = None,
                          split: str = "all") -> list[PoolEntry]:
        """The same references for a whole GRPO group: a fixed draw from the group seed."""
        counts = counts or {"love": 2, "okay": 2}
        rng = random.Random(f"aquarelle-references-{group_seed}")
        out: list[PoolEntry] = []
        for tier in ("love", "okay"):
            n = counts.get(tier, 0)
            cands = sorted(self.select(tier, split), key=lambda x: x.id)
            if n > len(cands):
                raise RewardError(f"the pool has {len(cands)} {tier} painting(s) in split {split!r}, {n} asked")
            out.extend(rng.sample(cands, n))
        return out


def load_pool(root: str | Path | None = None) -> list[dict]:
    """Plain rows for other parts (demonstrations): the entry fields plus ``path`` and ``source``."""
    pool = Pool(root)
    return [{**e.model_dump(), "path": str(pool.sketch_path(e)), "source": pool.source(e)} for e in pool.entries]


def load_prompts(split: str = "all", root: str | Path | None = None) -> list[dict]:
    """The prompt set as ``{id, subject, prompt, split}`` rows (``heldout`` is never for training)."""
    return [p.model_dump() for p in Pool(root).prompts(split)]


def tier_pairs(entries: Iterable[PoolEntry], hi: str, lo: str) -> list[tuple[PoolEntry, PoolEntry]]:
    es = list(entries)
    return [(a, b) for a in es if a.tier == hi for b in es if b.tier == lo]
