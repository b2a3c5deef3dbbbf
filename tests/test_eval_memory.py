"""What reading a run keeps in memory: `report` of a 500-step run held 304 MB, of 2,000 steps 510 MB, growing with
every rollout (two copies of each, a few KB apiece, for code nothing reads whole) and with every painting measured
(a 128 x 128 copy of each, 4,096 of them kept). Measured with tracemalloc, in bytes kept, not time."""

from __future__ import annotations

import gc
import json
import random
import tracemalloc
from pathlib import Path

import numpy as np
from PIL import Image

from aquarelle.eval import compare, evaluate, images, metrics, report
from aquarelle.eval.run import load_run, load_samples
from eval_fixtures import Synth, make_run

METHODS = ["background", "fill", "fillBleed", "fillTexture", "circle", "rect", "stroke", "line", "noStroke"]


def _line(rng: random.Random, step: int, i: int) -> dict:
    """A rollouts.jsonl line of the size training writes (``grpo.Recorder.record``): the program as JSON (a few KB),
    the transcript cut at 6,000 characters, the final observation's 400."""
    cmds = [{"method": rng.choice(METHODS), "args": [round(rng.uniform(0, 600), 2) for _ in range(4)]}
            for _ in range(rng.randint(30, 50))]
    calls = [f'<tool_call>{json.dumps({"name": c["method"], "arguments": c["args"]})}</tool_call>\n'
             f"<tool_response>Set {c['method']}. Coverage {rng.random():.1%}.</tool_response>" for c in cmds]
    methods: dict[str, int] = {}
    for c in cmds:
        methods[c["method"]] = methods.get(c["method"], 0) + 1
    return {"step": step, "prompt": f"a watercolour of lemons in a blue bowl, variant {step % 8}",
            "prompt_id": f"p{step % 8}", "split": "train", "mode": "tools", "group": 0,
            "code": json.dumps({"version": 1, "width": 600, "height": 600, "commands": cmds}),
            "image": f"images/step{step:05d}_{i:03d}.png", "seed": rng.randint(0, 2 ** 31), "reward": rng.random(),
            "breakdown": {"gate": 1.0, "length": rng.random(), "judge": rng.random(), "preference": rng.random()},
            "coverage": rng.random(), "n_calls": len(cmds), "errors": ["rect is not in the hf10 action space"],
            "methods": methods, "feedback": ("Finished. Reward 0.512. " + "Soft washes, a calm balance. " * 20)[:400],
            "completion": "\n".join(calls)[:6000], "judge_position_bias": 1, "judge_pairs": 4}


def test_a_loaded_rollout_keeps_a_few_hundred_bytes_of_a_realistic_line(tmp_path):
    """Each line of ~9 KB kept 6.6 KB (its code whole, its own copy of the prompt, the split and every method name);
    the measures read the code only to compare it within a group."""
    rng = random.Random(0)
    run = tmp_path / "run"
    run.mkdir()
    rows = [_line(rng, s, i) for s in range(100) for i in range(4)]
    rows[1]["code"] = rows[0]["code"]  # one repeat in the first group
    (run / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        loaded = load_run(run)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(loaded.rollouts) == len(rows)
    per = kept / len(rows)
    assert per < 3500, f"{per:.0f} bytes kept per rollout"
    r0, r1, r2 = loaded.rollouts[:3]
    assert r0.code is None and r0.code_key == r1.code_key != r2.code_key
    assert r0.prompt is loaded.rollouts[32].prompt and r0.split is r2.split  # one string, not one a line
    # what the measures read of the code is unchanged: one group of four with two alike
    assert metrics._repeated_code([[r.code_key for r in loaded.rollouts[:4]]]) == 0.5
    # eval samples (their collapse check reads the code) keep it whole
    (run / "samples.jsonl").write_text(json.dumps({**rows[0], "policy": "trained"}) + "\n")
    assert load_samples(run / "samples.jsonl")[0].code == rows[0]["code"]


def test_the_image_cache_keeps_thumbnails_not_pictures(tmp_path):
    """The cache of paintings read kept a 128 x 128 copy and a float thumbnail of each (60 KB) for one palette
    entropy: 240 MB once 4,096 were read. It keeps the 32 x 32 thumbnail and the entropy."""
    rng = random.Random(1)
    paths = []
    for i in range(60):
        p = tmp_path / f"p{i}.png"
        im = Image.new("RGB", (96, 96), (246, 240, 226))  # paper, and one flat colour on it
        im.paste(tuple(rng.randint(0, 120) for _ in range(3)), (24, 24, 72, 72))
        im.save(p)
        paths.append(p)
    images._load.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        got = [images.load(p) for p in paths]
        assert all(g is not None for g in got)
        thumb, entropy = got[0]
        assert thumb.shape == (images.THUMB, images.THUMB, 3) and thumb.dtype.name == "float32"
        del got, thumb
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        images._load.cache_clear()
    assert images._load.cache_info().currsize == 0
    assert kept / len(paths) < 8000, f"{kept / len(paths):.0f} bytes kept per painting"
    with Image.open(paths[0]) as im:  # the entropy of the painting at 128 x 128, as it was measured
        full = np.asarray(im.convert("RGB").resize((128, 128), Image.BILINEAR), dtype=np.uint8)
    assert entropy == images.palette_entropy(full) > 0


def test_report_and_compare_read_each_run_once(tmp_path, monkeypatch):
    """A report of a run without eval.json evaluated it by reading it again beside the copy it had: two copies of
    every rollout at once (compare did the same for each run)."""
    a, b = make_run(tmp_path / "a", Synth(steps=4)), make_run(tmp_path / "b", Synth(steps=4, seed=1))
    loaded = {p: load_run(p) for p in (a, b)}
    monkeypatch.setattr(evaluate, "scorer_probes", lambda run: {"skipped": "not measured here"})

    def reread(path):
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(evaluate, "load_run", reread)
    page = report.build(a, loaded[a])
    assert "aquarelle report: a" in page
    rows = compare.rows([a, b], [loaded[a], loaded[b]])
    assert [r["run"] for r in rows] == ["a", "b"]
    assert not (a / "eval.json").exists()


def test_evaluate_of_a_loaded_run_is_evaluate_of_its_folder(tmp_path, monkeypatch):
    run = make_run(tmp_path / "r", Synth(steps=6, collapse_after=0.5))
    monkeypatch.setattr(evaluate, "scorer_probes", lambda run: {"skipped": "not measured here"})
    same = [evaluate.evaluate(run, samples=0, progress=False), evaluate.evaluate(run, samples=0, progress=False,
                                                                                   run=load_run(run))]
    for ev in same:
        ev.pop("created"), ev.pop("provenance")
    assert same[0] == same[1]
    assert same[0]["diversity"]["duplicate_code_rate"] > 0  # the collapsed half repeats its code
