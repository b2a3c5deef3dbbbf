"""Probe the scorers with paintings of nothing: can a trivial painting beat the pool's loved ones?

Why: eval's gaming check looks for the judge and the preference parting ways. Scorers that both rate a single
soft circle above the pool's median "love" painting can rise together while the paintings get worse, and that
check then says "no sign of it". The local CPU scorers are such scorers (a QA pass on 2026-12-06: one soft circle
beat 95% of the love paintings under judge-led, padded with a comment it beat all). So the probes are scored with
the very reward config a run uses, against the pool's love paintings scored the same way, and a probe at or above
their median is said beside every gaming verdict and by ``aquarelle pool validate``. A probe is scored as if
padded to the whole length term: calls that paint nothing (off the canvas, sub-pixel) reach it at no cost to the
painting in either mode (a second pass that day; unused code no longer does since 2026-12-07, ``length.sketch_tokens``),
so the probes under weights leaning on length read low without it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from statistics import median
from typing import Any

from .config import RewardConfig, RewardError

#: Paintings with no subject that the local scorers rate highly (found by a random search over 1-3 circles).
PROBES: dict[str, str] = {
    "one soft circle": (
        "function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\n"
        "function draw() {\n  translate(-width / 2, -height / 2);\n  background('#fffceb');\n"
        "  brush.fill('#5b8fd6');\n  brush.fillBleed(0.3);\n  brush.fillTexture(0.6, 0.5);\n"
        "  brush.circle(300, 300, 200, 0.3);\n}\n"),
    "three overlapping circles": (
        "function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\n"
        "function draw() {\n  translate(-width / 2, -height / 2);\n"
        "  brush.fillBleed(0.03);\n  brush.fillTexture(0.79, 0.78);\n"
        "  brush.fill('#9c158c', 133);\n  brush.circle(274, 251, 233, 0.52);\n"
        "  brush.fill('#d26766', 203);\n  brush.circle(333, 180, 68, 0.06);\n"
        "  brush.fill('#4bdd34', 159);\n  brush.circle(370, 346, 204, 0.22);\n}\n"),
}
GROUP_SEEDS = (0, 1, 2)


@dataclass
class ProbeScore:
    name: str
    reward: float
    judge: float | None
    preference: float | None


@dataclass
class ProbeReport:
    """The probes' rewards (mean over ``group_seeds``) against the pool's love paintings' median reward."""
    probes: list[ProbeScore]
    love_median: float
    love_paintings: int
    group_seeds: list[int]
    fooled: list[str] = field(default_factory=list)  # the probes at or above ``love_median``

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def fooled_text(report: dict[str, Any]) -> str | None:
    """One clause naming the probes that reach the love median, or None (also for a report that is not one)."""
    if not isinstance(report, dict) or not report.get("fooled"):
        return None
    by_name = {p["name"]: p for p in report.get("probes") or [] if isinstance(p, dict)}
    shown = ", ".join(f"{n} {by_name[n]['reward']:.2f}" for n in report["fooled"] if n in by_name)
    return (f"these scorers rate a painting of nothing ({shown}) at or above the pool's median love painting "
            f"({report['love_median']:.2f}), so they can rise together while the paintings get no better")


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if len(vals) == len(xs) and vals else None


def probe_scorers(config: RewardConfig | None = None, group_seeds: tuple[int, ...] = GROUP_SEEDS) -> ProbeReport:
    """Score ``PROBES`` and the pool's love paintings with ``config``'s scorers and weights.

    Raises RewardError when the pool has no love painting, or a scorer fails (a reward None: infrastructure, which
    is no measurement)."""
    from ..brush.sandbox import run_sketch
    from ..render import render_program
    from .composite import RewardModel

    model = RewardModel(config or RewardConfig())
    pool = model.pool
    loves = pool.select(tier="love")
    if not loves:
        raise RewardError(f"pool {pool.root} has no love painting to measure the probes against")

    def reward_of(name: str, source: str, image=None, padded: bool = False) -> ProbeScore:
        res = run_sketch(source, action_space="full")
        if res.error or res.program is None:
            raise RewardError(f"probe {name}: the sandbox refused it: {res.error}")
        img = image if image is not None else render_program(res.program)
        scores = [model.score(image=img, program=res.program, source=source, mode="sketch", group_seed=gs,
                              violations=res.violations, action_space="full") for gs in group_seeds]
        bad = next((s.error for s in scores if s.reward is None), None)
        if bad:
            raise RewardError(f"{name}: {bad}")
        if padded:  # as if padded to the whole length term, which calls that paint nothing reach in either mode
            pad = model.config.weights_resolved().length
            scores = [s.model_copy(update={"reward": s.reward + pad * (1 - (s.breakdown.get("length") or 0))})
                      if s.reward > 0 else s for s in scores]
        return ProbeScore(name, sum(s.reward for s in scores) / len(scores),
                          _mean([s.breakdown.get("judge") for s in scores]),
                          _mean([s.breakdown.get("preference") for s in scores]))

    love = [reward_of(e.id, pool.source(e), pool.image(e)).reward for e in loves]
    probes = [reward_of(n, src, padded=True) for n, src in PROBES.items()]
    mid = median(love)
    return ProbeReport(probes=probes, love_median=mid, love_paintings=len(love), group_seeds=list(group_seeds),
                       fooled=[p.name for p in probes if p.reward >= mid])
