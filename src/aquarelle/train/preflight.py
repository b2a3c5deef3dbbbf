"""Checks that a training run can start, made before any model loads.

Why: loading the CPU default and warm-starting it costs minutes (about twenty on a
2-core machine). A typo in ``optim.extra_grpo_args`` or ``reward.extra``, an openai
judge without a URL, an environment server that is not up or an ``--out`` that is a
file used to surface only after that wait (or, for the reward, silently as an
unscored run); each must cost seconds and one line instead.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable

from .config import ConfigError, TrainConfig, check_settings

#: What a run directory holds once training has started in it (docs/CONTRACTS.md, issue 7).
RUN_FILES = ("config.json", "metrics.jsonl", "rollouts.jsonl", "summary.json", "eval.json", "checkpoint",
             "checkpoints")


def check_out(run: Path, resume: bool) -> None:
    """--out must be a directory that holds no run yet (or, with --resume, one with a checkpoint)."""
    if run.exists() and not run.is_dir():
        raise ConfigError(f"--out {run} is not a directory")
    from ..outputs import checkpoints

    resumable = bool(checkpoints(run))  # what --resume continues from
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


def check_prompts(cfg: TrainConfig) -> None:
    """The prompt file is there and has training prompts: read before ``--out`` is made, so a missing file leaves
    no empty run directory behind (``DataError``, one line naming the file)."""
    from .data import load_prompts

    load_prompts(cfg.prompts, split="train")


def check_model(cfg: TrainConfig) -> None:
    """The policy is there to load: a local path that exists and holds a model, or a Hub id that is cached or
    reachable (``ModelError``, one line). Before ``--out`` is made: a start that failed on its model left an empty
    run directory behind."""
    from .model import check_source

    check_source(cfg.model.name)


def check_reward(cfg: TrainConfig) -> None:
    """The reward backends that need a service have its URL, and a judge that counts has its pool. (The section
    itself was checked when the config was read: ``config._check_reward``.)

    With ``env.urls`` the servers score, each with the judge and preference URLs it was started with (a reset sends
    only the preset or weights, and ``/scoring`` is compared without URLs): the trainer calls no service itself, so
    it needs none of their URLs (``paint`` asked for none there either). The pool is still needed: the servers'
    references are compared with it."""
    from aquarelle.rewards.config import missing_pool, missing_service_url

    scorer = cfg.reward.scorer_config()
    missing = None if cfg.env.urls else missing_service_url(scorer)
    if missing:
        raise ConfigError(f"config key reward.{missing[0]}: {missing[1]}")
    missing = missing_pool(scorer)
    if missing:  # the environment variable is no config key
        raise ConfigError(f"{'' if missing[0] == 'AQUARELLE_POOL' else 'config key reward.extra.'}{missing[0]}: "
                          f"{missing[1]}")


#: GRPOConfig keywords a config key (or the run) sets: in extra_grpo_args they won silently, config.json recorded
#: the key's value instead, and an output_dir there sent the checkpoints where --resume never looks.
OWNED_GRPO_ARGS = {
    "output_dir": "the run's --out", "max_steps": "optim.max_steps", "learning_rate": "optim.learning_rate",
    "beta": "optim.beta", "seed": "optim.seed", "save_steps": "optim.save_steps", "save_strategy": "optim.save_steps",
    "save_total_limit": "optim.save_total_limit", "num_generations": "generation.num_generations",
    "per_device_train_batch_size": "generation.num_generations x generation.prompts_per_step",
    "max_completion_length": "generation.max_completion_length", "temperature": "generation.temperature",
    "top_p": "generation.top_p", "use_vllm": "generation.use_vllm", "vllm_mode": "generation.vllm_mode",
    "vllm_server_base_url": "generation.vllm_server_base_url",
    "max_tool_calling_iterations": "generation.max_tool_calling_iterations",
    "use_cpu": "the machine (CUDA or not)", "bf16": "model.dtype", "fp16": "model.dtype",
}


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
        fp16=cuda and cfg.model.dtype == "float16",  # mixed precision over float32 weights (ModelSection.weights_dtype)
        logging_steps=1, save_steps=cfg.optim.save_steps, save_strategy="steps",
        save_total_limit=cfg.optim.save_total_limit, report_to=[], disable_tqdm=False,
        use_vllm=gen.use_vllm, dataloader_num_workers=0, lr_scheduler_type="constant", warmup_steps=0,
    )
    if tools:
        args["max_tool_calling_iterations"] = gen.max_tool_calling_iterations
    if gen.use_vllm:
        args["vllm_mode"] = gen.vllm_mode
        if gen.vllm_server_base_url:
            args["vllm_server_base_url"] = gen.vllm_server_base_url
    problem = _extra_type_problem(GRPOConfig, cfg.optim.extra_grpo_args)
    if problem:
        raise ConfigError(f"config key optim.extra_grpo_args.{problem}")
    owned = next((k for k in cfg.optim.extra_grpo_args if k in OWNED_GRPO_ARGS), None)
    if owned:  # it won over the config's key while config.json recorded the key's value
        raise ConfigError(f"config key optim.extra_grpo_args.{owned}: {OWNED_GRPO_ARGS[owned]} sets it; "
                          "extra_grpo_args holds the GRPOConfig keywords nothing else sets")
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


def _extra_type_problem(config_cls: type, extras: dict[str, Any]) -> str | None:
    """"KEY: why" for the first extra whose value is not of its GRPOConfig field's number or flag type, else None.

    GRPOConfig takes ``learning_rate: "abc"`` without a word; the run then failed inside TRL's trainer, after the
    warm start's minutes. Only number and flag fields are checked: TRL reads several string fields from other
    types (``scale_rewards: true``)."""
    import dataclasses
    import math
    import typing

    try:
        hints = typing.get_type_hints(config_cls)
    except Exception:  # noqa: BLE001 - an annotation TRL's version cannot resolve: GRPOConfig's own checks remain
        return None
    names = {f.name for f in dataclasses.fields(config_cls)}
    for key, value in extras.items():
        if key not in names:
            continue  # GRPOConfig names it ("not a GRPOConfig field")
        kinds = set(typing.get_args(hints[key])) or {hints[key]}
        if value is None and type(None) in kinds:
            continue
        if float in kinds:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                return f"{key}: must be a finite number, got {value!r}"
        elif int in kinds:
            if isinstance(value, bool) or not isinstance(value, int):
                return f"{key}: must be a whole number, got {value!r}"
        elif bool in kinds and not isinstance(value, bool):
            return f"{key}: must be true or false, got {value!r}"
    return None


def check_env_urls(urls: list[str], reward: Any = None, *, config_file: str | None = None,
                   timeout_s: float = 5.0) -> None:
    """Each environment server answers its /health (training would otherwise retry for minutes per rollout) and,
    given the run's ``reward`` (a ``RewardConfig``), scores as the run would.

    Why the second check: a reset sends only the preset or weights, so a server scores with its own backends,
    references and sizes; a run configured with a vLLM judge on default servers was silently scored by the local
    critic. ``config_file`` is the file the run's config came from, for the fix the error names."""
    for url in urls:
        base = server_base(url)
        try:
            with urllib.request.urlopen(base + "/health", timeout=timeout_s) as r:
                r.read(256)
        except urllib.error.HTTPError as e:  # a server answered, but not an environment server's root
            raise ConfigError(f"environment server {url} answered HTTP {e.code} at {base}/health: give the URL of "
                              "the server's root, as `aquarelle serve` prints it (http://HOST:PORT)") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", None) or e
            # with the run's config file: a server started bare would score with the defaults, and be refused next
            serve = f"aquarelle serve --config {config_file}" if config_file else "aquarelle serve"
            raise ConfigError(f"environment server {url} does not answer ({reason}): start it with "
                              f"`{serve}`, or leave env.urls empty to run in-process") from None
        if reward is not None:
            check_env_scoring(url, reward, config_file=config_file, timeout_s=timeout_s)


def server_url_problem(url: str) -> str | None:
    """Why no environment client could reach the env server ``url`` (``ws://``, ``host:port`` are fine), or None:
    the preflight's ``env.urls`` check and ``make_tool_env``'s."""
    parsed = urllib.parse.urlparse(url if "://" in url else "http://" + url)
    if parsed.scheme not in ("http", "https", "ws", "wss") or not parsed.netloc:
        return f"{url!r} is not an http(s):// or ws(s):// URL"
    if parsed.query or parsed.fragment or parsed.params:
        # the client puts /ws at the URL's end, after any query: every rollout failed (HTTP 403) after this check,
        # which read the URL without it, had passed
        return (f"{url!r} has a query or fragment, which the environment client cannot carry: give the server's "
                "root URL (http://HOST:PORT)")
    return None


def server_base(url: str) -> str:
    """The http(s) base of an env server URL as the client takes it (``ws://``, ``host:port`` too), without a
    trailing slash; a URL no client could reach is a ConfigError naming ``env.urls``."""
    problem = server_url_problem(url)
    if problem:
        raise ConfigError(f"config key env.urls: {problem}")
    parsed = urllib.parse.urlparse(url if "://" in url else "http://" + url)
    scheme = {"ws": "http", "wss": "https"}.get(parsed.scheme, parsed.scheme)
    return urllib.parse.urlunparse((scheme, parsed.netloc, parsed.path.rstrip("/"), "", "", ""))


def check_env_scoring(url: str, reward: Any, *, config_file: str | None = None, timeout_s: float = 5.0) -> None:
    """The server's ``GET /scoring`` matches ``reward`` in every field that decides this run's scores
    (``rewards.config.scoring_differences``); else one ConfigError line naming the server, each differing field
    with both values, and how to start the server so it matches."""
    from aquarelle.rewards.config import scoring_differences

    described = _scoring_of(url, timeout_s)
    diffs = scoring_differences(described, reward)
    if diffs:
        # the pool is no config key: the server's is its AQUARELLE_POOL's (or pool_dir's) as it was when it started
        pool = (" with the same AQUARELLE_POOL (a server reads its pool once, at its start)"
                if any(d.startswith("pool") for d in diffs) else "")
        raise ConfigError(f"environment server {url} scores differently from this run ({'; '.join(diffs)}): "
                          f"{_serve_fix(config_file)}{pool}")


def _scoring_of(url: str, timeout_s: float) -> dict:
    """The server's scoring description; a server without one (an aquarelle from before ``/scoring``, or not
    aquarelle) is a one-line ConfigError: its scorers cannot be checked, and unchecked is how runs were mis-scored."""
    import json

    try:
        with urllib.request.urlopen(server_base(url) + "/scoring", timeout=timeout_s) as r:
            body = json.loads(r.read(65536))
    except urllib.error.HTTPError as e:
        raise ConfigError(f"environment server {url} does not say how it scores (GET /scoring: HTTP {e.code}; an "
                          "aquarelle older than this one?): update it, so its scorers can be checked against "
                          "this run's reward config") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise ConfigError(f"environment server {url} did not describe its scoring (GET /scoring: {reason})") from None
    if not isinstance(body, dict) or "judge_backend" not in body:
        raise ConfigError(f"environment server {url} answered GET /scoring with something that is not a scoring "
                          "description: is it an aquarelle env server?")
    return body


def _serve_fix(config_file: str | None) -> str:
    """How to start a server that scores as the run does: with the run's config file, or none for the defaults."""
    if config_file:
        return f"start it with `aquarelle serve --config {config_file}`"
    return ("start it with `aquarelle serve` and no --config (this run scores with the embedded defaults), or give "
            "the run a --config and start the server with the same file")


def check_vllm(cfg: TrainConfig) -> None:
    """generation.use_vllm needs the vllm package (TRL imports it only when the trainer starts, after the model),
    and optim.trackio the trackio package (found missing after the model loaded, the run went on unlogged)."""
    import importlib.util

    if cfg.generation.use_vllm and importlib.util.find_spec("vllm") is None:
        raise ConfigError("config key generation.use_vllm: vLLM is not installed (pip install 'trl[vllm]', on a GPU "
                          "machine), or set it to false")
    if cfg.optim.trackio and importlib.util.find_spec("trackio") is None:  # the run went on unlogged, said once
        raise ConfigError("config key optim.trackio: trackio is not installed (pip install trackio), or set it to "
                          "false")


def vllm_server_base(args: Any) -> str:
    """The vLLM server's base URL as TRL's client builds it from a GRPOConfig: ``vllm_server_base_url`` when set
    (its path kept), else ``http://vllm_server_host:vllm_server_port``."""
    if args.vllm_server_base_url:
        p = urllib.parse.urlparse(args.vllm_server_base_url)
        return f"{p.scheme or 'http'}://{p.netloc}{p.path}".rstrip("/")
    return f"http://{args.vllm_server_host}:{args.vllm_server_port}"


def _vllm_key(args: Any) -> str:
    if args.vllm_server_base_url:
        return "config key generation.vllm_server_base_url"
    return ("vLLM server (no generation.vllm_server_base_url: TRL's optim.extra_grpo_args vllm_server_host and "
            "vllm_server_port, by default 0.0.0.0:8000)")


def check_vllm_server(args: Any, model: str, *, log: Callable[[str], None] | None = None,
                      timeout_s: float = 5.0, info_timeout_s: float = 60.0) -> None:
    """In vLLM server mode, ask the server what TRL's client asks only once the model has loaded: ``/health``, then
    ``/server_info`` (weights are synchronised through vLLM's development endpoints and its weight-transfer engine,
    which a plain ``vllm serve`` lacks; TRL reads ``vllm_config.weight_transfer_config``). A server that answers but
    cannot take the policy's weights is refused (one ConfigError line) before minutes of model loading. One that
    does not answer yet, answers /health with a server error (an engine or a proxy still starting) or is slow to
    describe itself (vLLM collects its environment on the first /server_info) is a note, not a refusal: TRL waits
    ``vllm_server_timeout`` for it."""
    import json

    if not (args.use_vllm and args.vllm_mode == "server"):
        return
    log = log or (lambda m: None)
    base = vllm_server_base(args)
    fix = f"start it with `trl vllm-serve --model {model}`"

    def get(path: str, timeout: float) -> Any:
        with urllib.request.urlopen(base + path, timeout=timeout) as r:
            body = r.read(16 << 20)
        try:
            return json.loads(body)
        except ValueError:
            return None

    def not_yet(what: str) -> None:
        log(f"note: the vLLM server at {base} is not ready yet ({what}); once the model has loaded, the trainer "
            f"waits up to {args.vllm_server_timeout:g} s for it ({fix})")

    try:
        get("/health", timeout_s)
    except urllib.error.HTTPError as e:
        if e.code >= 500:
            return not_yet(f"GET /health: HTTP {e.code}")
        raise ConfigError(f"{_vllm_key(args)}: {base} answered GET /health with HTTP {e.code}: not a vLLM server "
                          f"({fix})") from None
    except (urllib.error.URLError, OSError) as e:
        return not_yet(f"GET /health: {getattr(e, 'reason', None) or e}")
    try:
        info = get("/server_info?config_format=json", info_timeout_s)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            raise ConfigError(f"{_vllm_key(args)}: the vLLM server at {base} does not expose its development "
                              f"endpoints, through which TRL sends the policy's weights each step ({fix}, which "
                              "sets VLLM_SERVER_DEV_MODE=1)") from None
        return not_yet(f"GET /server_info: HTTP {e.code}")
    except (urllib.error.URLError, OSError) as e:
        return not_yet(f"GET /server_info: {getattr(e, 'reason', None) or e}")
    vllm_config = info.get("vllm_config") if isinstance(info, dict) else None
    if not isinstance(vllm_config, dict):
        raise ConfigError(f"{_vllm_key(args)}: {base} answered GET /server_info without a vllm_config: not a vLLM "
                          f"server TRL can use ({fix})")
    if vllm_config.get("weight_transfer_config") is None:
        raise ConfigError(f"{_vllm_key(args)}: the vLLM server at {base} has no weight-transfer engine, so TRL "
                          f"cannot send it the policy's weights ({fix}, which passes --weight-transfer-config)")
    model_config = vllm_config.get("model_config")
    served = model_config.get("model") if isinstance(model_config, dict) else None
    if isinstance(served, str) and not _same_model(served, model):
        log(f"note: the vLLM server at {base} serves {served}, and this run trains {model}: TRL sends it the "
            f"policy's weights each step, which fails once the model has loaded unless both share an architecture "
            f"({fix})")


def _same_model(served: str, trained: str) -> bool:
    """The same Hub id or path, or the same model's last path part (a local copy of a Hub model, e.g.
    /models/Qwen3-4B for Qwen/Qwen3-4B), case aside."""
    a, b = served.rstrip("/"), trained.rstrip("/")
    return a == b or a.rsplit("/", 1)[-1].lower() == b.rsplit("/", 1)[-1].lower()


def preflight(cfg: TrainConfig, run: Path, *, resume: bool, config_file: str | None = None,
              log: Callable[[str], None] | None = None) -> Any:
    """Every check above; returns the GRPOConfig so training uses the one that was checked. ``config_file`` is
    where ``cfg`` came from (named in the fix for an env server that scores otherwise); ``log`` takes notes."""
    check_out(run, resume)
    if not resume:  # a resume trains on as its config.json says
        check_settings(cfg)
    check_prompts(cfg)
    check_vllm(cfg)
    check_reward(cfg)
    check_model(cfg)
    if cfg.env.urls:
        check_env_urls(cfg.env.urls, cfg.reward.scorer_config(), config_file=config_file)
    args = grpo_config(cfg, run, tools=cfg.mode in ("tools", "revise"))
    check_vllm_server(args, cfg.model.name, log=log)
    return args
