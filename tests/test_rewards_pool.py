"""The reference pool and prompt sets: shape, fixed splits, reference sampling, and tier accuracies."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from aquarelle.brush.action_space import HF10
from aquarelle.rewards.config import RewardConfig
from aquarelle.rewards.pool import Pool


@pytest.fixture(scope="module")
def pool() -> Pool:
    return Pool()


def test_pool_shape(pool):
    assert len(pool) >= 40
    assert len({e.subject for e in pool.entries}) >= 8
    tiers = Counter(e.tier for e in pool.entries)
    assert min(tiers[t] for t in ("love", "okay", "reject")) >= 8
    assert all(e.why.strip() and len(e.why.splitlines()) == 1 for e in pool.entries)
    heldout = [e for e in pool.entries if e.split == "heldout"]
    assert len(heldout) == len(pool) // 3
    for t in ("love", "okay", "reject"):  # every tier is represented in both splits
        assert {e.split for e in pool.entries if e.tier == t} == {"design", "heldout"}


def test_hf10_flags_match_the_sketches(pool):
    assert sum(e.hf10 for e in pool.entries) >= 20
    for e in pool.entries:
        src = pool.source(e)
        assert "createCanvas(600, 600, WEBGL)" in src and "translate(-width / 2, -height / 2)" in src
        methods = set(re.findall(r"brush\.(\w+)", src))
        assert (methods <= set(HF10)) == e.hf10, e.id


def test_prompts_have_a_fixed_heldout_split(pool):
    prompts = pool.prompts()
    assert len(prompts) >= 60 and len({p.id for p in prompts}) == len(prompts)
    held = pool.prompts("heldout")
    assert len(held) / len(prompts) >= 0.20
    subjects = {e.subject for e in pool.entries}
    assert {p.subject for p in prompts} == subjects
    assert {p.subject for p in held} == subjects
    raw = json.loads((pool.root / "prompts.json").read_text())
    assert [p["split"] for p in raw["prompts"]] == [p.split for p in prompts]


def test_references_fixed_by_group_seed(pool):
    a = pool.sample_references(7)
    assert [e.tier for e in a] == ["love", "love", "okay", "okay"]
    assert [e.id for e in a] == [e.id for e in pool.sample_references(7)]
    draws = {tuple(e.id for e in pool.sample_references(s)) for s in range(20)}
    assert len(draws) > 10


def test_local_scorers_order_the_heldout_tiers(pool):
    from aquarelle.rewards.validate import validate_pool

    report = validate_pool(pool, RewardConfig(), split="heldout")
    assert report["n"] == len(pool) // 3
    for name, acc in report["scorers"].items():
        assert acc["love>reject"] >= 0.85, (name, acc)
        assert acc["okay>reject"] >= 0.85, (name, acc)


def test_pool_cli_validate_json_and_serve_hps_without_hpsv3():
    from typer.testing import CliRunner

    from aquarelle.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["pool", "validate", "--json"])  # heldout by default (renders only that third)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["split"] == "heldout" and rep["n"] == 15
    assert set(rep["scorers"]) == {"judge[local]", "preference[local]"}
    assert set(rep["scorers"]["judge[local]"]) == {"love>reject", "okay>reject", "love>okay"}
    assert rep["probes"]["love_paintings"] > 0 and len(rep["probes"]["probes"]) == 2
    # the probes cost ~450 judge calls with a served judge: they can be left out
    quick = runner.invoke(app, ["pool", "validate", "--no-probes"])
    assert quick.exit_code == 0 and "probes: not scored (--no-probes)" in quick.stdout, quick.output
    bad = runner.invoke(app, ["pool", "validate", "--split", "everything"])
    assert bad.exit_code == 2 and "--split" in bad.output
    try:
        import hpsv3  # noqa: F401
    except ImportError:
        r = runner.invoke(app, ["serve-hps", "--port", "8799"])  # refused before it binds: nothing listens
        assert r.exit_code == 2 and "needs the hpsv3 package" in r.output and "Traceback" not in r.output
        r = runner.invoke(app, ["serve-hps", "--port", "0"])  # the port is checked first
        assert r.exit_code == 2 and "--port" in r.output and "needs the hpsv3 package" not in r.output


def _tiny_pool(root: Path, ids: list[str]) -> Path:
    """A pool of a few of the repository's paintings (with their cached images when there are any)."""
    src = Pool().root
    data = json.loads((src / "pool.json").read_text(encoding="utf-8"))
    data["paintings"] = [next(e for e in data["paintings"] if e["id"] == i) for i in ids]
    (root / "sketches").mkdir(parents=True)
    (root / "images").mkdir()
    (root / "pool.json").write_text(json.dumps(data))
    for i in ids:
        shutil.copy(src / "sketches" / f"{i}.js", root / "sketches")
        for ext in (".png", ".json"):
            if (src / "images" / f"{i}{ext}").is_file():
                shutil.copy(src / "images" / f"{i}{ext}", root / "images")
    return root


def test_pool_cli_broken_pool_and_unknown_id_are_one_line(tmp_path):
    from typer.testing import CliRunner

    from aquarelle.cli import app

    runner = CliRunner()
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "pool.json").write_text("{}")
    r = runner.invoke(app, ["pool", "validate", "--pool", str(empty)])
    assert r.exit_code == 2 and r.output.strip() == f"{empty / 'pool.json'} has no 'paintings' list"
    root = _tiny_pool(tmp_path / "p", ["animals_butterfly", "abstract_stripes_harsh"])
    data = json.loads((root / "pool.json").read_text())
    (empty / "pool.json").write_text(json.dumps({**data, "paintings": data["paintings"][:1] * 2}))
    r = runner.invoke(app, ["pool", "validate", "--pool", str(empty)])  # one sketch, rated twice
    assert r.exit_code == 2 and r.output.strip() == \
        f"{empty / 'pool.json'} is malformed: painting id 'animals_butterfly' is listed twice"
    r = runner.invoke(app, ["pool", "render", "--pool", str(root), "--id", "bogus"])
    assert r.exit_code == 2 and r.output.strip() == "no painting 'bogus' in the pool"
    (empty / "pool.json").write_text(json.dumps({**data, "paintings": []}))
    r = runner.invoke(app, ["pool", "render", "--pool", str(empty)])  # "0 images ... 0 failed", exit 0 before
    assert r.exit_code == 2 and r.output.strip() == f"pool {empty}: pool.json lists no paintings"
    (root / "sketches" / "animals_butterfly.js").unlink()
    r = runner.invoke(app, ["pool", "validate", "--pool", str(root)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip() == \
        f"pool sketch animals_butterfly: no sketch file at {root / 'sketches' / 'animals_butterfly.js'}"


@pytest.mark.parametrize("config, needle", [
    ({"preference_backend": "hpsv3", "preference_url": "http://127.0.0.1:9", "preference_retries": 0},
     "preference backend hpsv3 failed: hpsv3 service unreachable at http://127.0.0.1:9"),
    ({"judge_backend": "openai", "judge_url": "http://127.0.0.1:9/v1", "judge_model": "foo", "judge_retries": 0},
     "judge backend openai failed: judge unreachable at http://127.0.0.1:9/v1"),
])
def test_pool_cli_validate_with_an_unreachable_scorer_is_one_line(tmp_path, config, needle):
    from typer.testing import CliRunner

    from aquarelle.cli import app

    root = _tiny_pool(tmp_path / "p", ["animals_butterfly", "abstract_stripes_harsh"])
    cfg = tmp_path / "bad.json"
    cfg.write_text(json.dumps(config))
    r = CliRunner().invoke(app, ["pool", "validate", "--pool", str(root), "--config", str(cfg), "--json"])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and needle in r.output, r.output


def test_a_sandbox_that_makes_other_programs_redraws_the_pool_and_changes_its_digest(monkeypatch, pool):
    """The references are the programs the sandbox makes of the pool's sketches: when it makes other ones (its
    ``PROGRAM_VERSION``), the cached renders of both backends are stale and a server's pool is not the run's."""
    import aquarelle.rewards.pool as pool_mod

    e = pool.entries[0]
    keys, digest = [pool._key(e, b) for b in ("native", "browser")], pool_mod.pool_digest()
    monkeypatch.setattr(pool_mod, "PROGRAM_VERSION", pool_mod.PROGRAM_VERSION + 1)
    assert all(pool._key(e, b) != k for b, k in zip(("native", "browser"), keys))
    assert pool_mod.pool_digest() != digest


def test_pool_cli_a_sketch_that_is_not_utf8_or_a_split_without_paintings_is_one_line(tmp_path):
    """A pool sketch that is not UTF-8 was a UnicodeDecodeError traceback from Pool.source; a pool with no
    paintings printed a table of nan and exited 0."""
    from typer.testing import CliRunner

    from aquarelle.cli import app

    runner = CliRunner()
    root = _tiny_pool(tmp_path / "p", ["animals_butterfly", "abstract_stripes_harsh"])
    sketch = root / "sketches" / "animals_butterfly.js"
    sketch.write_bytes(b"\xff\xfe garbage")
    said = f"pool sketch animals_butterfly: {sketch}: cannot read: not UTF-8 text ('utf-8' codec can't decode byte " \
           "0xff in position 0: invalid start byte)"
    r = runner.invoke(app, ["pool", "validate", "--pool", str(root), "--split", "all"])
    assert r.exit_code == 2 and r.output.strip() == said
    r = runner.invoke(app, ["pool", "render", "--pool", str(root), "--id", "animals_butterfly"])
    assert r.exit_code == 1 and r.output.strip().splitlines()[0] == said
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "pool.json").write_text('{"paintings": []}')
    r = runner.invoke(app, ["pool", "validate", "--pool", str(empty)])
    assert r.exit_code == 2 and r.output.strip() == f"pool {empty}: split heldout has no paintings to validate on"


def test_a_prompt_id_naming_two_prompts_is_refused_by_the_pool_and_by_eval(tmp_path):
    from aquarelle.eval.prompts import PromptError, pool_prompts
    from aquarelle.rewards.config import RewardError

    root = _tiny_pool(tmp_path / "p", ["animals_butterfly"])
    rows = [{"id": "a", "subject": "tulips", "prompt": "red tulips", "split": "train"},
            {"id": "a", "subject": "fox", "prompt": "a fox in the snow", "split": "heldout"}]
    (root / "prompts.json").write_text(json.dumps({"prompts": rows}))
    with pytest.raises(RewardError, match=r"prompts\.json: prompt id 'a' names two prompts \('red tulips' and 'a fox"):
        Pool(root).prompts()
    with pytest.raises(PromptError, match=r"cannot read the prompt set: prompt file .*prompts\.json: prompt id 'a' names two"):
        pool_prompts(root)
    rows[1]["prompt"] = "red tulips"  # the same prompt trained and held out
    (root / "prompts.json").write_text(json.dumps({"prompts": rows}))
    with pytest.raises(RewardError, match=r"prompt id 'a' is in two splits \(train and heldout\)"):
        Pool(root).prompts()
    rows[1]["id"] = "b"
    (root / "prompts.json").write_text(json.dumps({"prompts": rows}))
    assert [p.id for p in Pool(root).prompts()] == ["a", "b"]


def _fake_render(monkeypatch):
    """The pool's render without the renderer (its kernels compile for a minute in a fresh checkout): the cache's
    place is what is tested."""
    import numpy as np

    import aquarelle.render

    monkeypatch.setattr(aquarelle.render, "render_program",
                        lambda program, backend="native": np.zeros((8, 8, 3), np.uint8))


def _small_pool(root: Path, n: int = 2) -> Path:
    src = Path(Pool().root)
    data = json.loads((src / "pool.json").read_text(encoding="utf-8"))
    data["paintings"] = data["paintings"][:n]
    (root / "sketches").mkdir(parents=True)
    (root / "pool.json").write_text(json.dumps(data))
    for e in data["paintings"]:
        shutil.copy(src / "sketches" / f"{e['id']}.js", root / "sketches")
    return root


def test_the_pool_an_installed_wheel_carries_caches_its_renders_in_the_user_cache(tmp_path, monkeypatch):
    """A wheel carries the pool in site-packages (aquarelle/_bundled/pool): its renders went to
    site-packages/aquarelle/_bundled/pool/images/, left behind by an uninstall and refused where site-packages is
    read-only ("cannot cache the render of pool sketch ...", every judged reward None)."""
    import aquarelle.bundled

    monkeypatch.setattr(aquarelle.bundled, "BUNDLED", tmp_path / "_bundled")
    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))
    _fake_render(monkeypatch)
    pool = Pool(_small_pool(tmp_path / "_bundled" / "pool"))
    e = pool.entries[0]
    _, fresh = pool.render(e)
    assert fresh and pool.image_path(e).is_file() and pool.cached(e)
    assert pool.images_dir.parent == tmp_path / "cache" / "pool-images"
    assert not (pool.root / "images").exists()
    assert Pool(pool.root).render(e)[1] is False  # the next scorer finds the cached render


def test_a_pool_that_cannot_be_written_caches_its_renders_in_the_user_cache(tmp_path, monkeypatch):
    """A pool on a read-only mount (or a user's copy without write permission) could not cache its renders: the
    judge's first reference render raised PermissionError. A writable pool keeps them in its own images/."""
    import os

    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))
    _fake_render(monkeypatch)
    ro = _small_pool(tmp_path / "ro")
    access = os.access
    # the tests run as root, whom a chmod does not stop: the pool's folder answers as a read-only mount's does
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == ro and mode & os.W_OK
                        else access(p, mode, **kw))
    pool = Pool(ro)
    assert pool.render(pool.entries[0])[1] and pool.cached(pool.entries[0])
    assert not (ro / "images").exists() and pool.images_dir.is_relative_to(tmp_path / "cache")
    rw = Pool(_small_pool(tmp_path / "rw"))
    rw.render(rw.entries[0])
    assert rw.images_dir == rw.root / "images" and rw.image_path(rw.entries[0]).is_file()


def test_in_a_checkout_its_own_pool_prompts_and_node_modules_come_before_an_installed_copy(tmp_path, monkeypatch):
    """The copies a wheel carries (aquarelle/_bundled/) are the last resort: the variables, then the checkout's own
    pool/ and node_modules (the tests' and `make setup`'s) come first."""
    import aquarelle.bundled
    from aquarelle.render.browser import find_node_modules
    from aquarelle.rewards.pool import default_pool_dir
    from aquarelle.train.data import POOL_DIR, prompt_file

    monkeypatch.delenv("AQUARELLE_POOL", raising=False)
    monkeypatch.delenv("AQUARELLE_NODE_MODULES", raising=False)
    monkeypatch.chdir(tmp_path)
    before = (default_pool_dir(), prompt_file(None), find_node_modules())
    installed = tmp_path / "_bundled"
    _small_pool(installed / "pool")
    (installed / "node_modules").symlink_to(before[2])
    monkeypatch.setattr(aquarelle.bundled, "BUNDLED", installed)
    assert aquarelle.bundled.bundled_pool() == installed / "pool"
    assert (default_pool_dir(), prompt_file(None), find_node_modules()) == before
    assert before[0] == POOL_DIR and before[1] == POOL_DIR.resolve() / "prompts.json"
    monkeypatch.setenv("AQUARELLE_POOL", str(tmp_path / "mine"))
    assert default_pool_dir() == tmp_path / "mine"
