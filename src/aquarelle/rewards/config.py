"""Reward weights, presets and the scorer configuration.

Weights are plain data resolved per call (a preset name, a config file or a
per-episode dict), never read once from the environment at import: changing the
mix must not need a restart.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..configfile import RealNumber, WholeNumber, read_mapping

TERMS = ("gate", "length", "judge", "preference")
#: the largest weight a term may have
MAX_WEIGHT = 1e6


class Weights(BaseModel):
    """How much each term counts: reward = gate x (gate + length*L + judge*J + preference*P)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # an inf weight made reward inf/NaN
    # Weights are relative (each preset's sum to 1). Finite ones overflowed too: {gate: 1e308, preference: 1e308}
    # scored a good painting inf (null over the wire), and a reward past ~1e154 overflows GRPO's group std.
    gate: RealNumber = Field(0.05, ge=0, le=MAX_WEIGHT)
    length: RealNumber = Field(0.05, ge=0, le=MAX_WEIGHT)
    judge: RealNumber = Field(0.60, ge=0, le=MAX_WEIGHT)
    preference: RealNumber = Field(0.30, ge=0, le=MAX_WEIGHT)

    @model_validator(mode="after")
    def _not_all_zero(self) -> "Weights":
        if self.gate + self.length + self.judge + self.preference <= 0:
            raise ValueError("weights must not all be zero")
        return self

    def as_dict(self) -> dict[str, float]:
        return {t: float(getattr(self, t)) for t in TERMS}


PRESETS: dict[str, Weights] = {
    "judge-led": Weights(gate=0.05, length=0.05, judge=0.60, preference=0.30),
    "hps-led": Weights(gate=0.05, length=0.05, judge=0.30, preference=0.60),
    "hps-only": Weights(gate=0.05, length=0.05, judge=0.00, preference=0.90),
}
DEFAULT_PRESET = "judge-led"
DEFAULT_JUDGE_MODEL = "Qwen/Qwen3-VL-30B-A3B-Instruct"
#: the largest size a scorer is configured to see a painting at (a reset's ``image_size`` and ``env.image_size`` too)
MAX_IMAGE_SIZE = 2048


class RewardError(ValueError):
    """Bad reward configuration (unknown preset, bad weights): a one-line message."""


#: The pool's rating tiers (``pool.PoolEntry.tier``, and ``sft.tiers`` in a training config).
TIERS = ("love", "okay", "reject")
Tier = Literal["love", "okay", "reject"]


def resolve_weights(preset: str | None = None, weights: dict | Weights | None = None, *,
                    base: Weights | None = None) -> Weights:
    """A preset (else ``base``, the weights a scorer was configured with, else judge-led), with any keys of
    ``weights`` overriding it."""
    if preset or base is None:
        name = preset or DEFAULT_PRESET
        if name not in PRESETS:
            raise RewardError(f"unknown reward preset {name!r} (known: {', '.join(PRESETS)})")
        base = PRESETS[name]
    if weights is None:
        return base
    if isinstance(weights, Weights):
        return weights
    if not isinstance(weights, dict):
        raise RewardError(f"weights must be a mapping of {', '.join(TERMS)}, got {type(weights).__name__}")
    unknown = [k for k in weights if k not in TERMS]
    if unknown:
        raise RewardError(f"unknown weight term(s) {', '.join(map(str, unknown))} (known: {', '.join(TERMS)})")
    try:
        return Weights(**{**base.as_dict(), **weights})
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err["msg"]).removeprefix("Value error, ")  # the all-zero check is a ValueError: say only why
        raise RewardError(f"bad weight {where}: {msg}" if where else f"bad weights: {msg}") from None


def reset_scoring(preset: str | None, weights: dict | None) -> dict[str, Any]:
    """What an environment reset takes for a preset and weights: it takes one of them, not both, so given terms
    come with the preset's others filled in (docs/config.md: the terms given override the configured preset's).
    Weights without a preset go as given: the environment fills the other terms from the weights its scorer was
    configured with, which this side does not know (filled here, they came from judge-led)."""
    if weights and preset:
        return {"weights": resolve_weights(preset, weights).as_dict()}
    if weights:
        return {"weights": dict(weights)}
    return {"preset": preset} if preset else {}


#: The longest a scorer's timeout or backoff may be, in seconds. inf (``1e309``) or a wait past ~1e9 s loaded, and
#: every judged episode then failed with "OverflowError: timestamp out of range" (a socket's timeout); a day is
#: already no scorer's answer.
MAX_WAIT_S = 24 * 3600.0


class ReferenceCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    love: WholeNumber = Field(2, ge=0)
    okay: WholeNumber = Field(2, ge=0)


class RewardConfig(BaseModel):
    """Scorer backends and their settings; every field has an embedded default.

    URLs, model names and the API key may also come from the environment
    (``AQUARELLE_JUDGE_URL``, ``AQUARELLE_JUDGE_MODEL``, the variable named by
    ``judge_api_key_env``, ``AQUARELLE_HPS_URL``) when the config leaves them empty.
    """

    model_config = ConfigDict(extra="forbid")
    preset: str = DEFAULT_PRESET
    weights: dict[str, RealNumber] | None = None
    judge_backend: Literal["local", "openai"] = "local"
    judge_url: str | None = None
    judge_model: str | None = None  # default DEFAULT_JUDGE_MODEL
    judge_api_key_env: str | None = None  # the only source when given; else AQUARELLE_JUDGE_API_KEY, OPENAI_API_KEY
    judge_timeout_s: RealNumber = Field(60.0, gt=0, le=MAX_WAIT_S, allow_inf_nan=False)
    judge_retries: WholeNumber = Field(2, ge=0)
    judge_backoff_s: RealNumber = Field(1.0, ge=0, le=MAX_WAIT_S, allow_inf_nan=False)
    judge_concurrency: WholeNumber = Field(8, ge=1)
    # at most 2048, as a reset's image_size: both resample the painting up as well as down, so 100000 made every
    # score ask for a 30 GB image (reward None "MemoryError" at best, a worker of many GB at worst)
    judge_image_size: WholeNumber = Field(512, ge=64, le=MAX_IMAGE_SIZE)
    judge_cache_size: WholeNumber = Field(4096, ge=0)
    preference_backend: Literal["local", "hpsv3"] = "local"
    preference_url: str | None = None
    preference_timeout_s: RealNumber = Field(60.0, gt=0, le=MAX_WAIT_S, allow_inf_nan=False)
    preference_retries: WholeNumber = Field(2, ge=0)
    references: ReferenceCounts = ReferenceCounts()
    reference_split: Literal["all", "design", "heldout"] = "all"
    pool_dir: str | None = None  # default: the repository's pool/
    render_size: WholeNumber = Field(256, ge=32, le=MAX_IMAGE_SIZE)  # size images are scored at by the local scorers

    @field_validator("preset", mode="before")
    @classmethod
    def _known_preset(cls, v: Any) -> Any:
        # "" was read as the default preset (resolve_weights' `preset or DEFAULT_PRESET`), silently
        if isinstance(v, str) and v not in PRESETS:
            raise ValueError(f"unknown reward preset {v!r} (known: {', '.join(PRESETS)})")
        return v

    @model_validator(mode="after")
    def _check_weights(self) -> "RewardConfig":
        w = resolve_weights(self.preset, self.weights)
        if w.judge > 0 and self.references.love + self.references.okay == 0:  # else every reward None, unexplained
            raise ValueError(f"the judge (weight {w.judge:g}) needs at least one reference painting (references: "
                             "love + okay >= 1), or give the judge weight 0")
        return self

    def resolved_judge_url(self) -> str | None:
        return self.judge_url or os.environ.get("AQUARELLE_JUDGE_URL") or None

    def resolved_judge_model(self) -> str:
        return self.judge_model or os.environ.get("AQUARELLE_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL

    def resolved_api_key(self) -> str:
        """The judge's API key: from the variable ``judge_api_key_env`` names, and only from it ("none" while it is
        unset: ``api_key_env_problem`` says so where the config is checked); without one, AQUARELLE_JUDGE_API_KEY,
        then OPENAI_API_KEY. A named variable fell back too, so a typo in its name sent the user's OpenAI key to
        whatever host judge_url names."""
        if self.judge_api_key_env:
            return os.environ.get(self.judge_api_key_env) or "none"
        return os.environ.get("AQUARELLE_JUDGE_API_KEY") or os.environ.get("OPENAI_API_KEY") or "none"

    def api_key_env_problem(self) -> str | None:
        """What is wrong with the variable ``judge_api_key_env`` names (``names JUDGE_KEY, which is not set``), or
        None when it holds a key or no variable is named."""
        name = self.judge_api_key_env
        if not name or os.environ.get(name):
            return None
        return f"names {name}, which is {'empty' if name in os.environ else 'not set'}"

    def resolved_preference_url(self) -> str | None:
        return self.preference_url or os.environ.get("AQUARELLE_HPS_URL") or None

    def weights_resolved(self) -> Weights:
        return resolve_weights(self.preset, self.weights)


def missing_service_url(config: RewardConfig) -> tuple[str, str] | None:
    """(field, why) when a backend that needs a service, and counts in the configured weights, has no URL (in the
    config or its environment variable), or one that is not an http(s) URL with a host (``judge:8000/v1``), or (the
    openai judge) ``judge_api_key_env`` names a variable that is not set; else None. Without one, every reward it is
    asked for is None (or, for the key, asked without it)."""
    w = config.weights_resolved()
    checks = (("judge_url", config.judge_backend == "openai" and w.judge > 0, config.judge_url,
               "AQUARELLE_JUDGE_URL", "the openai judge", "http://judge:8000/v1"),
              ("preference_url", config.preference_backend == "hpsv3" and w.preference > 0, config.preference_url,
               "AQUARELLE_HPS_URL", "the hpsv3 backend", "http://hps:8765"))
    for field, needed, given, env, who, like in checks:
        if not needed:
            continue
        url = given or os.environ.get(env) or None
        if not url:
            return field, f"{who} needs a URL (or {env})"
        if not is_http_url(url):  # "judge:8000/v1" loaded, then every judged reward was None "judge unreachable"
            where = "" if given else f" (from {env})"
            return field, f"{_named_url(url)}{where} is not an http(s) URL with a host: give one like {like}"
        problem = config.api_key_env_problem() if field == "judge_url" else None
        if problem:  # no fallback to OPENAI_API_KEY (a typo sent it to judge_url's host): say it before a start
            return "judge_api_key_env", problem
    return None


def is_http_url(url: str) -> bool:
    """Whether ``url`` parses as an http(s) URL with a host (and a port, if any, that is a number), with no
    whitespace around it (``urlsplit`` would strip it; an HTTP client need not)."""
    return url == url.strip() and _http_parts(url) is not None


def _http_parts(url: str) -> Any:
    """``urlsplit(url)`` when it is an http(s) URL with a host and a port that is a number (if any), else None
    (``urlsplit`` raises on ``http://[bad`` and on a port that is not a number)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return None
    return parts if parts.scheme in ("http", "https") and host else None


def _named_url(url: str) -> str:
    """A URL that did not parse, quoted for a message without what may be a key: ``user:key@`` and the query."""
    shown = url.split("?", 1)[0].split("#", 1)[0]
    if "@" in shown:
        shown = "..." + shown[shown.rindex("@"):]
    return repr(shown if len(shown) <= 80 else shown[:77] + "...")


def check_services(config: RewardConfig, path: Any = None) -> None:
    """``RewardError`` (one line, naming the file ``path`` when there is one) when a weighed backend has no usable
    URL or the judge has no pool: every reward it scored would be None for that one reason, so ``serve`` and
    ``score`` refuse the config before they start (train's preflight names its own config keys)."""
    missing = missing_service_url(config) or missing_pool(config)
    if missing:
        raise RewardError(f"{f'reward config {path}: ' if path else ''}{missing[0]}: {missing[1]}")


def missing_pool(config: RewardConfig) -> tuple[str, str] | None:
    """(field, why) when the judge counts in the configured weights and its references' pool is not there (a
    mistyped ``AQUARELLE_POOL`` or ``pool_dir``), is malformed or lacks the references it draws; else None. Without it every judged reward is None: a run found out
    after its warm start, a server once episodes were scored."""
    if config.weights_resolved().judge <= 0:
        return None
    from .pool import Pool, default_pool_dir  # pool imports this module

    index = (Path(config.pool_dir) if config.pool_dir else default_pool_dir()) / "pool.json"
    # what named the pool: the config's pool_dir, else the variable (a config key no one set was named before)
    field = "pool_dir" if config.pool_dir or not os.environ.get("AQUARELLE_POOL") else "AQUARELLE_POOL"
    if not index.is_file():
        return field, f"no pool at {index} (set AQUARELLE_POOL or pool_dir): the judge's references come from it"
    try:  # a malformed pool.json, or one without the references the judge draws: a server started healthy with it
        pool = Pool(index.parent)
        pool.sample_references(0, config.references.model_dump(), config.reference_split)
    except RewardError as e:
        return field, str(e)
    from .pool import PoolRenderError

    # every reference it may draw renders (cached after the first time): a broken or missing sketch passed, and the
    # episodes whose seed drew it were scored None in the middle of a run
    for tier, n in config.references.model_dump().items():
        for e in pool.select(tier, config.reference_split) if n else []:
            try:
                pool.render(e)
            except PoolRenderError as err:
                return field, f"{err} (a {tier} reference the judge draws)"
            except OSError as err:  # the renders are cached (Pool.images_dir)
                return field, f"cannot cache the render of pool sketch {e.id}: {err.strerror or err}"
    return None


#: What a server's ``/scoring`` description holds besides preset and weights: the settings that decide a score.
#: Never the API key; URLs are there to read, not to compare (one service may have several names).
SCORING_FIELDS = ("judge_backend", "judge_model", "judge_url", "judge_image_size", "preference_backend",
                  "preference_url", "references", "reference_split", "pool", "render_size")


def scoring_description(config: RewardConfig) -> dict[str, Any]:
    """How a scorer configured with ``config`` scores, as plain JSON (an environment server's ``GET /scoring``).

    Why: a training run sends only its preset or weights with each reset, so the backends, references and sizes
    are the server's own; a run must be able to see them to refuse a server that would score it differently."""
    from .pool import pool_digest  # pool imports this module

    # a local scorer has no model or service: naming the default judge model beside a local judge read as if a
    # VLM judged (null, as a local preference's URL is)
    served = config.judge_backend != "local"
    return {"preset": config.preset, "weights": config.weights_resolved().as_dict(),
            "judge_backend": config.judge_backend, "judge_model": config.resolved_judge_model() if served else None,
            "judge_url": shown_url(config.resolved_judge_url()) if served else None,
            "judge_image_size": config.judge_image_size, "preference_backend": config.preference_backend,
            "preference_url": (shown_url(config.resolved_preference_url())
                               if config.preference_backend != "local" else None),
            "references": config.references.model_dump(), "reference_split": config.reference_split,
            "pool": pool_digest(config.pool_dir), "render_size": config.render_size}


#: what a description shows for a service URL it cannot show safely (not an http(s) URL with a host)
URL_WITHHELD = "(not shown: not an http(s) URL with a host)"


def shown_url(url: str | None) -> str | None:
    """The URL's scheme, host, port and path only: a description is served to whoever asks, and a key may ride
    in ``user:password@``, in the query (``?api_key=...``, as some gateways take it), in ``;params`` or in the
    fragment. Every message that names a service's URL shows it so: a scorer's error reaches the env client in
    its observation ("judge unreachable at ..."). A URL that does not parse as http(s) with a host (``user:pass@host/v1`` without a scheme is all
    "path" to ``urlsplit``; ``http://[bad`` raises) is withheld whole, never raised: it would stop the server."""
    if not url:
        return url
    from urllib.parse import urlunsplit

    parts = _http_parts(url.strip())
    if parts is None:
        return URL_WITHHELD
    host, port = parts.hostname, parts.port
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port is not None else ""
    path = parts.path.split(";", 1)[0]
    return urlunsplit((parts.scheme, netloc, path, "", ""))


def scoring_differences(server: dict[str, Any], run: RewardConfig) -> list[str]:
    """What in a server's scoring description would score ``run``'s rollouts otherwise than the run itself would,
    one ``field: server X, run Y`` each (empty when nothing does).

    Only what decides this run's scores is compared. Not the preset or weights (each reset sends the run's), not
    URLs (a server may reach the same service by another hostname), and not a scorer the run weighs 0 (it is never
    asked); the judge's model and image size matter only to the openai judge, ``render_size`` only to a local
    scorer."""
    mine = scoring_description(run)
    w = run.weights_resolved()
    fields: list[str] = []
    if w.judge > 0:
        fields += ["judge_backend", "references", "reference_split", "pool"]
        if run.judge_backend == "openai":
            fields += ["judge_model", "judge_image_size"]
    if w.preference > 0:
        fields.append("preference_backend")
    if (w.judge > 0 and run.judge_backend == "local") or (w.preference > 0 and run.preference_backend == "local"):
        fields.append("render_size")
    return [f"{f}: server {json.dumps(server.get(f), sort_keys=True)}, run {json.dumps(mine[f], sort_keys=True)}"
            for f in fields if server.get(f) != mine[f]]


#: the keys each backend setting's non-local choice reads
_READS = {"judge_backend": ("judge_url", "judge_model", "judge_api_key_env"), "preference_backend": ("preference_url",)}


def unread_service_key(data: dict[str, Any]) -> tuple[str, str] | None:
    """(key, why) for a service setting a file gives a local backend, which never reads it, or None.

    Why: a config with the judge's URL and model but no ``judge_backend: openai`` (a user copying the URLs) was
    accepted, and the run was scored by the built-in judge without a word; likewise ``preference_url``."""
    if data.get("judge_backend", "local") == "local":
        for key in _READS["judge_backend"]:
            if data.get(key) is not None:
                return key, ("set, but judge_backend is local (the built-in judge reads no URL, model or key): "
                             "add judge_backend: openai, or leave it out")
    if data.get("preference_backend", "local") == "local" and data.get("preference_url") is not None:
        return "preference_url", ("set, but preference_backend is local (the built-in preference reads no URL): "
                                  "add preference_backend: hpsv3, or leave it out")
    return None


def load_config(path: str | Path | None = None, **overrides: Any) -> RewardConfig:
    """Read a JSON or YAML reward config (or the defaults), with keyword overrides.

    The file is a flat reward config, one under a ``rewards:`` key, a training config (docs/config.md), whose
    ``reward:`` section is read the way training reads it, or a run's ``config.json`` (the training config it ran
    with, under ``config``): so an environment server can be started with the very config a run used.
    """
    data: dict[str, Any] = {}
    saved_run = False
    if path is not None:
        p = Path(path)
        data = read_mapping(p, "reward config", RewardError)
        if "rewards" in data:
            data = data["rewards"] or {}
            if not isinstance(data, dict):
                raise RewardError(f"reward config {p}: 'rewards' must be a mapping")
        elif _is_training_config(data):
            data = _training_reward_section(data, p)
        elif isinstance(data.get("config"), dict) and _is_training_config(data["config"]):  # RUN/config.json
            data = _training_reward_section(data["config"], p)
            saved_run = True  # read as it trained: a key its backend ignored stays ignored
    given = {k: v for k, v in overrides.items() if v is not None}
    # a backend chosen on the command line is the user's choice (`--preference-backend local` over a file's
    # hpsv3 and URL); a run's config.json is read as it trained
    chosen = [key for backend, keys in _READS.items() if backend in given for key in keys]
    unread = None if saved_run else unread_service_key({k: v for k, v in data.items() if k not in chosen})
    data.update(given)
    if unread:
        raise RewardError(f"reward config {path}: {unread[0]}: {unread[1]}" if path is not None else
                          f"reward config: {unread[0]}: {unread[1]}")
    try:
        return RewardConfig.model_validate(data)  # not **data: a key that is not a string (`1: 2`) raised TypeError
    except ValidationError as e:
        err = e.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")
        where = ".".join(str(x) for x in err.get("loc", ()))
        raise RewardError(f"bad reward config field {where}: {msg}" if where else f"bad reward config: {msg}") from None


def _is_training_config(data: dict) -> bool:
    """A training config (aquarelle.train.config.TrainConfig): its keys never overlap a flat reward config's."""
    return bool(set(data) & {"reward", "mode", "model", "generation", "optim", "sft", "env", "prompts"})


def _training_reward_section(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The RewardConfig keywords a training run builds from the training config's ``reward:`` section."""
    from ..train.config import ConfigError, config_from

    try:
        section = config_from(data).reward
    except ConfigError as e:
        raise RewardError(f"training config {path}: {e}") from None
    return {**section.reward_config(), "preset": section.preset, "weights": section.weights}
