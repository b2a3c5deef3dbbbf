"""Synthetic training runs for the evaluation tests.

A run is written exactly as training writes one (config.json, metrics.jsonl,
rollouts.jsonl, images/) with real small PNG paintings drawn with PIL, so the
image-distance metrics measure something: each rollout's picture depends on its
prompt and its own seed, unless the run is made to collapse. Judge and preference
follow linear trends from ``start`` to ``end`` values so a test can build the
exact situation a metric must detect.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

PAPER = (246, 240, 226)
WEIGHTS = {
    "judge-led": {"gate": 0.05, "length": 0.05, "judge": 0.60, "preference": 0.30},
    "hps-led": {"gate": 0.05, "length": 0.05, "judge": 0.30, "preference": 0.60},
    "hps-only": {"gate": 0.05, "length": 0.05, "judge": 0.0, "preference": 0.90},
}
TRAIN_PROMPTS = [("p-tulips", "red tulips in a glass vase"), ("p-pears", "three pears on a table"),
                 ("p-lake", "a mountain lake at dawn"), ("p-fox", "a fox in the snow")]
HELDOUT_PROMPTS = [("h-boat", "a sailing boat at sunset"), ("h-lemons", "lemons in a blue bowl")]
PALETTES = [["#c0392b", "#e67e22", "#27ae60"], ["#8e44ad", "#2980b9", "#16a085"], ["#d35400", "#f1c40f", "#2c3e50"],
            ["#e84393", "#00b894", "#0984e3"], ["#6c5ce7", "#fdcb6e", "#e17055"], ["#2d3436", "#74b9ff", "#55efc4"]]


@dataclass
class Synth:
    """What a synthetic run looks like. Values at step 0 -> values at the last step (linear)."""

    steps: int = 9
    group_size: int = 4
    prompts: list[tuple[str, str]] = field(default_factory=lambda: list(TRAIN_PROMPTS))
    preset: str = "judge-led"
    judge: tuple[float, float] = (0.4, 0.7)
    preference: tuple[float, float] = (0.5, 0.75)
    gate_fail: tuple[float, float] = (0.3, 0.05)
    length: tuple[float, float] = (0.5, 0.5)
    weights: dict[str, float] | None = None  # stated weights (the run's config), instead of the preset's
    noise: float = 0.05
    collapse_after: float | None = None  # fraction of training after which every painting is the same
    outside_rate: float = 0.0  # share of rollouts that call `rect` (a p5.brush method outside hf10)
    invented_rate: float = 0.0  # share of rollouts that call an invented `paintSky`
    position_bias: int = 1  # flipped verdicts per rollout (of 4 references)
    size: int = 48
    seed: int = 0


def draw_painting(rng: random.Random, size: int, palette: list[str], shapes: int = 4) -> tuple[Image.Image, list]:
    """A small watercolour-ish picture (translucent blobs on paper) and the hf10 calls that 'made' it."""
    img = Image.new("RGB", (size, size), PAPER)
    layer = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    calls: list[dict] = [{"method": "background", "args": ["#f6f0e2"]}, {"method": "noStroke", "args": []}]
    for _ in range(shapes):
        col = rng.choice(palette)
        rgb = tuple(int(col[i:i + 2], 16) for i in (1, 3, 5))
        x, y = rng.uniform(0, size), rng.uniform(0, size)
        r = rng.uniform(size * 0.12, size * 0.35)
        d.ellipse([x - r, y - r * rng.uniform(0.6, 1.0), x + r, y + r], fill=rgb + (150,))
        calls += [{"method": "fill", "args": [col, 150]}, {"method": "fillBleed", "args": [0.2]},
                  {"method": "circle", "args": [x * 600 / size, y * 600 / size, r * 600 / size, 0.3]}]
    img.paste(layer, (0, 0), layer)
    return img, calls


def _coverage(img: Image.Image) -> float:
    a = np.asarray(img, dtype=np.int16)
    return float((np.abs(a - np.array(PAPER)).max(axis=2) > 10).mean())


def _lerp(ab: tuple[float, float], f: float) -> float:
    return ab[0] + (ab[1] - ab[0]) * f


def make_rollout(run: Path, spec: Synth, rng: random.Random, *, step: int, frac: float, prompt: tuple[str, str],
                 group: int, idx: int, split: str = "train", policy: str | None = None,
                 image_dir: str = "images") -> dict:
    """One rollout line, with its PNG written under run/image_dir."""
    w = spec.weights or WEIGHTS[spec.preset]
    pid, text = prompt
    if spec.collapse_after is not None and frac >= spec.collapse_after:
        prng = random.Random(12345)
        img, calls = draw_painting(prng, spec.size, PALETTES[0])
    else:
        pal = PALETTES[(sum(map(ord, pid)) + idx) % len(PALETTES)]
        img, calls = draw_painting(rng, spec.size, pal, shapes=rng.randint(2, 6))
    errors: list[str] = []
    methods: dict[str, int] = {}
    for c in calls:
        methods[c["method"]] = methods.get(c["method"], 0) + 1
    if rng.random() < spec.outside_rate:
        methods["rect"] = methods.get("rect", 0) + 1
        errors.append("rect is not in the hf10 action space")
    if rng.random() < spec.invented_rate:
        errors.append("paintSky is not in the hf10 action space (and it is not a p5.brush method)")
    gate_ok = rng.random() >= _lerp(spec.gate_fail, frac)
    clip = lambda v: min(1.0, max(0.0, v))  # noqa: E731
    judge = clip(_lerp(spec.judge, frac) + rng.gauss(0, spec.noise))
    pref = clip(_lerp(spec.preference, frac) + rng.gauss(0, spec.noise))
    length = clip(_lerp(spec.length, frac) + rng.gauss(0, 0.1))
    if gate_ok:
        breakdown = {"gate": 1.0, "length": length, "judge": judge, "preference": pref}
        reward = w["gate"] + w["length"] * length + w["judge"] * judge + w["preference"] * pref
    else:
        breakdown = {"gate": 0.0, "length": None, "judge": None, "preference": None}
        reward = 0.0
    rel = f"{image_dir}/{policy + '-' if policy else ''}s{step:04d}-g{group:03d}-{idx}.png"
    (run / rel).parent.mkdir(parents=True, exist_ok=True)
    img.save(run / rel)
    row = {"step": step, "prompt": text, "prompt_id": pid, "split": split, "mode": "tools", "group": group,
           "code": json.dumps({"version": 1, "width": 600, "height": 600, "commands": calls}),
           "image": rel, "reward": round(reward, 5), "breakdown": breakdown, "coverage": round(_coverage(img), 5),
           "n_calls": len(calls) + len(errors), "errors": errors, "methods": methods,
           "judge_position_bias": spec.position_bias if gate_ok and w["judge"] > 0 else None}
    if policy:
        row["policy"] = policy
    return row


def make_run(path: Path, spec: Synth | None = None, **over) -> Path:
    """Write a complete synthetic run directory and return its path."""
    spec = spec or Synth(**over)
    path = Path(path)
    (path / "images").mkdir(parents=True, exist_ok=True)
    rng = random.Random(spec.seed)
    # the shape `aquarelle train` writes: the training config under "config", the starting policy under "policy"
    config = {"config": {"mode": "tools", "model": {"name": "tiny-test-model"},
                         "generation": {"num_generations": spec.group_size}, "optim": {"max_steps": spec.steps},
                         "env": {"action_space": "hf10"},
                         "reward": {"preset": spec.preset, "weights": spec.weights}},
              "policy": "tiny-test-model", "warm_start": None}
    (path / "config.json").write_text(json.dumps(config, indent=2))
    rows, metrics = [], []
    group = 0
    for step in range(spec.steps):
        frac = step / max(1, spec.steps - 1)
        prompt = spec.prompts[step % len(spec.prompts)]
        step_rows = []
        for extra in range(2):  # two prompts (GRPO groups) per step
            p = spec.prompts[(step + extra) % len(spec.prompts)]
            for i in range(spec.group_size):
                step_rows.append(make_rollout(path, spec, rng, step=step, frac=frac, prompt=p, group=group, idx=i))
            group += 1
        del prompt
        rows += step_rows
        rew = [r["reward"] for r in step_rows]
        bd = lambda t: float(np.mean([r["breakdown"][t] or 0.0 for r in step_rows]))  # noqa: E731
        metrics.append({"step": step, "reward": float(np.mean(rew)), "reward_std": float(np.std(rew)),
                        "frac_reward_zero_std": 0.0, "gate_mean": bd("gate"), "length_mean": bd("length"),
                        "judge_mean": bd("judge"), "preference_mean": bd("preference"), "loss": 0.01 * step,
                        "grad_norm": 1.0, "step_time": 2.0, "env_time_share": 0.04, "tool_calls_mean": 12.0,
                        "completion_len_mean": 200.0})
    with (path / "rollouts.jsonl").open("w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    with (path / "metrics.jsonl").open("w") as f:
        for m in metrics:
            f.write(json.dumps(m) + "\n")
    return path


def make_samples(run: Path, *, trained: Synth, start: Synth, prompts: list[tuple[str, str]],
                 split: str, k: int = 4, seed: int = 1, append: bool = False) -> Path:
    """Pre-sampled eval rollouts for the trained and starting policies (``policy`` key), as eval writes them."""
    out = run / "eval_samples.jsonl"
    rng = random.Random(seed)
    lines = []
    for policy, spec in (("trained", trained), ("start", start)):
        for i in range(k):
            p = prompts[i % len(prompts)]
            lines.append(make_rollout(run, spec, rng, step=0, frac=1.0, prompt=p, group=i, idx=i, split=split,
                                      policy=policy, image_dir=f"eval/{split}"))
    with out.open("a" if append else "w") as f:
        for r in lines:
            f.write(json.dumps(r) + "\n")
    return out
