"""CLI: ``aquarelle score``, ``aquarelle scorers check``, ``aquarelle pool render|validate``, ``aquarelle serve-hps``.

Only typer is imported at module level; numpy and the scorers load inside commands.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

scorers_app = typer.Typer(help="Reward scorer backends.", no_args_is_help=True)
pool_app = typer.Typer(help="The hand-rated reference pool.", no_args_is_help=True)


def _fail(msg: str, code: int = 2) -> None:
    print(msg, file=sys.stderr)
    raise typer.Exit(code)


def _config(config: Optional[Path], **overrides):
    from .config import RewardError, load_config

    try:
        return load_config(config, **overrides)
    except RewardError as e:
        _fail(str(e))


def score_cmd(
    sketches: List[Path] = typer.Argument(..., help="p5.brush sketches (.js) or command programs (.json); '-' "
                                          "reads one from stdin."),
    preset: Optional[str] = typer.Option(None, "--preset", help="judge-led | hps-led | hps-only."),
    action_space: str = typer.Option("full", "--action-space", help="full | hf10 | comma-separated methods."),
    config: Optional[Path] = typer.Option(None, "--config", help="Reward or training config (JSON or YAML)."),
    prompt: Optional[str] = typer.Option(None, "--prompt", help="What the painting should show (HPSv3 uses it)."),
    seed: int = typer.Option(0, "--seed", help="The episode's seed, as an environment reset's: a sketch runs and is "
                             "painted under it (its own randomSeed still reseeds) and, without --group-seed, it picks "
                             "the judge's references. A program file keeps its own header seed."),
    group_seed: Optional[int] = typer.Option(None, "--group-seed", help="Seed that picks the judge's references "
                                             "(default: --seed)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per sketch on stdout."),
) -> None:
    """Score sketches with the composite reward (gate, length, pairwise judge, preference)."""
    from ..brush.files import stdin_twice
    from .config import RewardError, check_services

    if twice := stdin_twice(sketches):
        _fail(twice)
    cfg = _config(config, preset=preset)

    try:
        check_services(cfg, config)  # every sketch would be reward None for one reason: say it once, as serve does
    except RewardError as e:
        _fail(str(e))
    from ..brush.action_space import get_space
    from ..brush.commands import CommandError

    try:
        get_space(action_space)
    except CommandError as e:
        _fail(str(e))
    from ..brush.files import InputError, is_program, painting_of, read_input
    from ..brush.program import Program
    from ..brush.sandbox import run_sketch
    from .composite import RewardModel

    model = RewardModel(cfg)
    failed = False
    def unscored(path: Path, error: str) -> None:
        """A sketch that got no reward: one line on stderr and, with --json, its record like any other."""
        print(f"{path}: {error}", file=sys.stderr)
        if as_json:
            print(json.dumps({"sketch": str(path), "reward": None, "breakdown": {}, "weights": {},
                              "gate_reasons": [], "error": error}), flush=True)

    for path in sketches:
        source, too_big = None, None
        try:
            source = read_input(path)  # as check and render read it: a binary file is unreadable, not a 0
        except InputError as e:
            if e.limit is None:
                unscored(path, str(e))
                failed = True
                continue
            too_big = str(e)  # the sandbox's source limit: the sketch's fault, so the gate's 0 as before
        painting, program = source, None
        if too_big is None:
            try:  # a program, or a rollout's {"program": ...} / {"code": ...}, as check, render and export take them
                painting, program_json = painting_of(source, is_program(path, source))
                program = Program.from_json(painting) if program_json else None
            except CommandError as e:
                unscored(path, str(e).splitlines()[0])
                failed = True
                continue
        if too_big is not None:
            kw = dict(program=None, mode="sketch", source=None, violations=[], error=too_big)
        elif program is not None:  # scored as a tools episode's program
            kw = dict(program=program, mode="tools", source=None,
                      violations=get_space(action_space).violations(program.commands), error=None)
        else:
            try:
                res = run_sketch(painting, action_space=action_space, seed=seed)
            except Exception as e:  # noqa: BLE001 - SandboxError: our worker, not the sketch
                unscored(path, f"sandbox failed: {e}")
                failed = True
                continue
            kw = dict(program=res.program, mode="sketch", source=painting, violations=res.violations, error=res.error)
        try:
            r = model.score(image=None, **kw, group_seed=seed if group_seed is None else group_seed, prompt=prompt,
                            action_space=action_space)
        except RewardError as e:
            _fail(f"{path}: {e}")
        out = {"sketch": str(path), "reward": r.reward, "breakdown": r.breakdown, "weights": r.weights,
               "gate_reasons": r.gate_reasons}
        if r.error:
            out["error"] = r.error
            failed = True
            print(f"{path}: scorer failed: {r.error}", file=sys.stderr)
        if as_json:
            print(json.dumps(out), flush=True)
        else:
            b = r.breakdown
            fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
            rew = "None" if r.reward is None else f"{r.reward:.3f}"
            print(f"{path}: reward {rew}  gate {fmt(b['gate'])} length {fmt(b['length'])} "
                  f"judge {fmt(b['judge'])} preference {fmt(b['preference'])}"
                  + (f"  ({'; '.join(r.gate_reasons)})" if r.gate_reasons else ""))
    raise typer.Exit(1 if failed else 0)


@scorers_app.command("check")
def scorers_check(
    config: Optional[Path] = typer.Option(None, "--config", help="Reward or training config (JSON or YAML)."),
    judge_backend: Optional[str] = typer.Option(None, "--judge-backend", help="local | openai."),
    preference_backend: Optional[str] = typer.Option(None, "--preference-backend", help="local | hpsv3."),
) -> None:
    """Ask every backend the configured weights count a real question; exit 1 naming each one that does not answer.

    A backend weighed 0 is never asked by score, serve or train, so it is not checked either: said on stdout."""
    cfg = _config(config, judge_backend=judge_backend, preference_backend=preference_backend)
    from .composite import RewardModel

    model = RewardModel(cfg)
    problems = model.check()
    backends, weighed = {"judge": cfg.judge_backend, "preference": cfg.preference_backend}, model.weighed_terms()
    asked = [f"{t}={b}" for t, b in backends.items() if t in weighed]
    skipped = [f"{t}={b}" for t, b in backends.items() if t not in weighed]
    for p in problems:
        print(f"FAIL {p}", file=sys.stderr)
    for s in skipped:
        print(f"skip {s}: weight 0 in the configured weights, never asked")
    if problems:
        raise typer.Exit(1)
    print(f"ok: {' '.join(asked)} answer{'s' if len(asked) == 1 else ''}" if asked else "ok: no scorer is weighed")


@pool_app.command("render")
def pool_render(
    force: bool = typer.Option(False, "--force", help="Re-render even when the cache is fresh."),
    pool_dir: Optional[Path] = typer.Option(None, "--pool", help="Pool directory (default: $AQUARELLE_POOL, else the repo's pool/, else the installed one)."),
    only: Optional[List[str]] = typer.Option(None, "--id", help="Render only these painting ids."),
) -> None:
    """Render the pool's sketches into pool/images/ (cached by sketch hash; an installed pool's: the user's cache)."""
    from .config import RewardError
    from .pool import Pool, PoolRenderError

    try:
        pool = Pool(pool_dir)
    except RewardError as e:
        _fail(str(e))
    try:
        entries = [pool.get(i) for i in only] if only else pool.entries
    except RewardError as e:  # an unknown --id
        _fail(str(e))
    if not entries:  # "0 images ... (0 rendered, 0 cached, 0 failed)", exit 0, where validate, score and serve refuse it
        _fail(f"pool {pool.root}: pool.json lists no paintings")
    from rich.progress import Progress

    fresh = failed = 0
    with Progress(console=__import__("rich.console").console.Console(stderr=True), transient=True,
                  disable=not sys.stderr.isatty()) as prog:
        task = prog.add_task("rendering pool", total=len(entries))
        for e in entries:
            try:
                _, new = pool.render(e, force=force)
                fresh += new
            except PoolRenderError as err:
                print(str(err), file=sys.stderr)
                failed += 1
            prog.advance(task)
    print(f"{len(entries) - failed} images in {pool.images_dir} ({fresh} rendered, "
          f"{len(entries) - failed - fresh} cached, {failed} failed)", file=sys.stderr)
    raise typer.Exit(1 if failed else 0)


@pool_app.command("validate")
def pool_validate(
    split: str = typer.Option("heldout", "--split", help="heldout | design | all."),
    pool_dir: Optional[Path] = typer.Option(None, "--pool", help="Pool directory (default: $AQUARELLE_POOL, else the repo's pool/, else the installed one)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Reward or training config: validates its backends."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object on stdout."),
    probes: bool = typer.Option(True, "--probes/--no-probes", help="Also score the paintings of nothing against the "
                                "love paintings (with a served judge, about 450 more judge calls)."),
) -> None:
    """How often each scorer ranks love above reject and okay above reject (pairwise accuracy)."""
    if split not in ("heldout", "design", "all"):
        _fail(f"--split must be heldout, design or all (got {split!r})")
    cfg = _config(config)
    from .config import RewardError
    from .hps_client import PreferenceBackendError
    from .judge import JudgeBackendError
    from .pool import Pool, PoolRenderError
    from .validate import validate_pool

    from .probes import fooled_text, probe_scorers

    if pool_dir is not None:  # the probes score against the same pool's love paintings
        cfg = cfg.model_copy(update={"pool_dir": str(pool_dir)})
    try:
        pool = Pool(pool_dir)
        report = validate_pool(pool, cfg, split=split)
    except (RewardError, PoolRenderError) as e:
        _fail(str(e))
    except JudgeBackendError as e:  # the configured scorer did not answer: infrastructure, like scorers check
        _fail(f"judge backend {cfg.judge_backend} failed: {str(e).splitlines()[0]}", 1)
    except PreferenceBackendError as e:
        _fail(f"preference backend {cfg.preference_backend} failed: {str(e).splitlines()[0]}", 1)
    try:  # the probes' own failure (no love painting, a scorer down) leaves the table: it used to end the command
        report["probes"] = probe_scorers(cfg).as_dict() if probes else {"skipped": "--no-probes"}
    except Exception as e:  # noqa: BLE001 - RewardError, a backend's error, our sandbox: said, not the command's end
        report["probes"] = {"skipped": f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"}
    if as_json:
        print(json.dumps(report))
        return
    print(f"pool {pool.root}: split {split}, {report['n']} paintings {report['tiers']}")
    print(f"{'scorer':<24}{'love>reject':>12}{'okay>reject':>12}{'love>okay':>10}")
    for name, acc in report["scorers"].items():
        print(f"{name:<24}{acc['love>reject']:>12.3f}{acc['okay>reject']:>12.3f}{acc['love>okay']:>10.3f}")
    pr = report["probes"]
    if "skipped" in pr:
        print(f"probes: not scored ({pr['skipped']})")
        return
    print(f"probes (reward under {cfg.preset}{', custom weights' if cfg.weights else ''}, mean over group seeds "
          f"{', '.join(map(str, pr['group_seeds']))}; the median of the pool's {pr['love_paintings']} love paintings "
          f"{pr['love_median']:.3f}):")
    for p in pr["probes"]:
        print(f"  {p['name']:<28}{p['reward']:.3f}{'  at or above the love median' if p['name'] in pr['fooled'] else ''}")
    fooled = fooled_text(pr)
    if fooled:
        print(f"warning: {fooled}; a gaming verdict of eval cannot rest on the scorers agreeing")


def serve_hps(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8765, "--port", min=1, max=65535),
    device: str = typer.Option("cuda", "--device", help="Torch device for HPSv3."),
    checkpoint: Optional[str] = typer.Option(None, "--checkpoint", help="Local HPSv3 checkpoint (default: Hub)."),
) -> None:
    """Serve HPSv3 over HTTP for the `hpsv3` preference backend (needs `pip install hpsv3`, a GPU)."""
    try:
        import hpsv3  # noqa: F401
    except ImportError:
        _fail("serve-hps needs the hpsv3 package (its own environment: see aquarelle/rewards/hps_server.py)")
    from .hps_server import serve

    serve(host, port, device, checkpoint)


def register(app: typer.Typer) -> None:
    app.command("score")(score_cmd)
    app.command("serve-hps")(serve_hps)
    app.add_typer(scorers_app, name="scorers")
    app.add_typer(pool_app, name="pool")
