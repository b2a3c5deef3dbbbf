"""Checks that a training run can start, made before any model loads.

Why: loading the CPU default and warm-starting it costs minutes (about twenty on a
2-core machine). A typo in ``optim.extra_grpo_args`` or ``reward.extra``, an openai
judge without a URL, an environment server that is not up or an ``--out`` that is a
file used to surface only after that wait (or, for the reward, silently as an
unscored run); each must cost seconds and one line instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config import ConfigError, TrainConfig

#: What a run directory holds once training has started in it (docs/CONTRACTS.md, issue 7).
RUN_FILES = ("config.json", "metrics.jsonl", "rollouts.jsonl", "summary.json", "eval.json", "checkpoint",
             "checkpoints")


def check_out(run: Path, resume: bool) -> None:
    """--out must be a directory that holds no run yet (or, with --resume, one with a checkpoint)."""
    if run.exists() and not run.is_dir():
        raise ConfigError(f"--out {run} is not a directory")
    resumable = any((run / "checkpoints").glob("checkpoint-*"))  # what --resume continues from
    if resume:
        if not resumable:
            raise ConfigError(f"--resume: no checkpoint in {run / 'checkpoints'} to continue from")
        return
    held = [name for name in RUN_FILES if (run / name).exists()]
    if held and resumable:
        raise ConfigError(f"run directory {run} already holds a run ({', '.join(held)}): use --resume to "
                          "continue it, or another --out")
    if held:  # e.g. killed before its first checkpoint: --resume has nothing to continue from, so it is not offered
        raise ConfigError(f"run directory {run} already holds a run ({', '.join(held)}) with no checkpoint to "
                          "resume from, so it cannot be resumed: remove it to start again, or use another --out")


def check_reward(cfg: TrainConfig) -> None:
    """The reward backends that need a service have its URL. (The section itself was checked when the config
    was read: ``config._check_reward``.)"""
    from aquarelle.rewards.config import RewardConfig

    section = cfg.reward
    rc = RewardConfig(**section.reward_config(), preset=section.preset, weights=section.weights)
    if rc.judge_backend == "openai" and rc.weights_resolved().judge > 0 and not rc.resolved_judge_url():
        raise ConfigError("config key reward.judge_url: the openai judge needs a URL (or AQUARELLE_JUDGE_URL)")
    if rc.preference_backend == "hpsv3" and rc.weights_resolved().preference > 0 and not rc.resolved_preference_url():
        raise ConfigError("config key reward.preference_url: the hpsv3 backend needs a URL (or AQUARELLE_HPS_URL)")


def grpo_config(cfg: TrainConfig, run: Path, tools: bool) -> Any:
    """The trl.GRPOConfig of the run; a wrong ``optim.extra_grpo_args`` (or a batch TRL refuses) is a ConfigError."""
    import torch
    from trl import GRPOConfig

    gen = cfg.generation
    cuda = torch.cuda.is_available()
    args = dict(
        output_dir=str(run / "checkpoints"), max_steps=cfg.optim.max_steps, learning_rate=cfg.optim.learning_rate,
        per_device_train_batch_size=gen.num_generations * gen.prompts_per_step, num_generations=gen.num_generations,
        max_completion_length=gen.max_completion_length, temperature=gen.temperature, top_p=gen.top_p,
        beta=cfg.optim.beta, seed=cfg.optim.seed, use_cpu=not cuda, bf16=cuda and cfg.model.dtype == "bfloat16",
        logging_steps=1, save_steps=cfg.optim.save_steps, save_strategy="steps", report_to=[], disable_tqdm=False,
        use_vllm=gen.use_vllm, dataloader_num_workers=0, lr_scheduler_type="constant", warmup_steps=0,
    )
    if tools:
        args["max_tool_calling_iterations"] = gen.max_tool_calling_iterations
    if gen.use_vllm:
        args["vllm_mode"] = gen.vllm_mode
        if gen.vllm_server_base_url:
            args["vllm_server_base_url"] = gen.vllm_server_base_url
    args.update(cfg.optim.extra_grpo_args)
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:  # shown only when the config is good: the error
            warnings.simplefilter("always")  # must stay the one line on stderr
            built = GRPOConfig(**args)
        for w in caught:  # replayed through the filters (the package silences TRL's deprecation noise)
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return built
    except (TypeError, ValueError) as e:
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        msg = msg.replace("GRPOConfig.__init__() got an unexpected keyword argument", "not a GRPOConfig field:")
        raise ConfigError(f"config key optim.extra_grpo_args: {msg}") from None


def check_env_urls(urls: list[str], timeout_s: float = 5.0) -> None:
    """Each environment server answers its /health (training would otherwise retry for minutes per rollout)."""
    import urllib.error
    import urllib.parse
    import urllib.request

    for url in urls:
        parsed = urllib.parse.urlparse(url if "://" in url else "http://" + url)  # the client takes host:port too
        if parsed.scheme not in ("http", "https", "ws", "wss") or not parsed.netloc:
            raise ConfigError(f"config key env.urls: {url!r} is not an http(s):// or ws(s):// URL")
        scheme = {"ws": "http", "wss": "https"}.get(parsed.scheme, parsed.scheme)
        health = urllib.parse.urlunparse((scheme, parsed.netloc, parsed.path.rstrip("/") + "/health", "", "", ""))
        try:
            with urllib.request.urlopen(health, timeout=timeout_s) as r:
                r.read(256)
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", None) or e
            raise ConfigError(f"environment server {url} does not answer ({reason}): start it with "
                              "`aquarelle serve`, or leave env.urls empty to run in-process") from None


def check_vllm(cfg: TrainConfig) -> None:
    """generation.use_vllm needs the vllm package (TRL imports it only when the trainer starts, after the model)."""
    import importlib.util

    if cfg.generation.use_vllm and importlib.util.find_spec("vllm") is None:
        raise ConfigError("config key generation.use_vllm: vLLM is not installed (pip install 'trl[vllm]', on a GPU "
                          "machine), or set it to false")


def preflight(cfg: TrainConfig, run: Path, *, resume: bool) -> Any:
    """Every check above; returns the GRPOConfig so training uses the one that was checked."""
    check_out(run, resume)
    check_vllm(cfg)
    check_reward(cfg)
    if cfg.env.urls:
        check_env_urls(cfg.env.urls)
    return grpo_config(cfg, run, tools=cfg.mode in ("tools", "revise"))
