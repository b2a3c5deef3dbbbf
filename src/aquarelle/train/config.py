"""One training config (YAML or JSON); every key has an embedded default and command-line flags override it.

Why one file: a run must be reproducible from its ``config.json`` alone, and the same
file must move a run from the 2-core CPU default to a GPU box with a Hub model, vLLM
and remote scorers without code changes. docs/config.md documents every key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, ValidationError
from pydantic_core import PydanticCustomError

from ..configfile import RealNumber, WholeNumber, read_mapping
from ..rewards.config import Tier

Mode = Literal["tools", "sketch", "revise"]
Preset = Literal["judge-led", "hps-led", "hps-only"]


def _named(v: str) -> str:
    """An empty policy name started training anyway (the default's loader took it) and made a warm-start cache
    entry with no name: refused as the key's one line."""
    if not v.strip():
        raise PydanticCustomError("empty_name", "must name a policy (smollm2, a Hub id or a path), not an empty string")
    return v


PolicyName = Annotated[str, AfterValidator(_named)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelSection(_Section):
    name: PolicyName = Field("smollm2", description="policy: 'smollm2' (CPU default), 'tiny', a Hub id or a local path/run dir")
    dtype: Literal["float32", "bfloat16", "float16"] = Field(
        "float32", description="training precision: bfloat16/float16 train in mixed precision on a GPU (float32 "
                               "weights, half-precision compute); with lora the frozen base is held in it")
    lora: StrictBool = Field(False, description="train a LoRA adapter instead of all weights")
    lora_r: WholeNumber = Field(8, ge=1, description="LoRA rank")
    lora_alpha: WholeNumber = Field(16, ge=1, description="LoRA alpha")
    lora_target_modules: list[str] | str = Field("all-linear", description="LoRA target modules")
    train_layers: WholeNumber | Literal["all"] | None = Field(None, description="train only the top N decoder layers; "
                                                      "'all'; None = auto (6 for the CPU default on a CPU, else all)")

    def layers_to_train(self, cuda: bool) -> int | None:
        """The resolved number of top layers to train (None: all)."""
        if self.train_layers == "all":
            return None
        if self.train_layers is None:
            return 6 if (self.name == "smollm2" and not cuda) else None
        return int(self.train_layers)

    def weights_dtype(self) -> str:
        """The dtype the trained model's weights are loaded in: ``dtype`` for a LoRA run's frozen base (PEFT keeps
        the adapter in float32), float32 otherwise. Why: the optimizer stepped bfloat16 weights directly, and a
        1e-5 step changed 15.6% of them (the rest rounded away); float16 weights were all non-finite after one."""
        return self.dtype if self.lora else "float32"


class GenerationSection(_Section):
    num_generations: WholeNumber = Field(2, ge=2, description="G: completions per prompt (one GRPO group)")
    prompts_per_step: WholeNumber = Field(1, ge=1, description="distinct prompts (groups) per optimisation step")
    max_completion_length: WholeNumber = Field(640, ge=8, description="token budget per rollout, tool results included")
    max_tool_calling_iterations: WholeNumber = Field(2, ge=1, description="assistant turns that may call tools")
    temperature: RealNumber = Field(1.0, gt=0, allow_inf_nan=False, description="sampling temperature")
    top_p: RealNumber = Field(1.0, gt=0, le=1, description="nucleus sampling")
    use_vllm: StrictBool = Field(False, description="generate with vLLM (GPU machines); passed to GRPOConfig")
    vllm_mode: Literal["colocate", "server"] = Field("colocate", description="TRL vLLM mode")
    vllm_server_base_url: str | None = Field(None, description="URL of `trl vllm-serve` in server mode")


class OptimSection(_Section):
    max_steps: WholeNumber = Field(2, ge=1, description="GRPO optimisation steps")
    learning_rate: RealNumber = Field(1e-5, gt=0, description="GRPO learning rate")
    beta: RealNumber = Field(0.0, ge=0, description="KL coefficient (0 = no reference model, as TRL defaults)")
    seed: WholeNumber = Field(0, ge=0, le=2**32 - 1, description="seed for sampling, prompt order and GRPO group "
                                                                 "seeds")
    save_steps: WholeNumber = Field(50, ge=1, description="checkpoint every N steps (and always at the end)")
    # every checkpoint was kept: a 1,000-step full fine-tune of a 1.5B policy holds ~18 GB a checkpoint, 20 of them
    save_total_limit: WholeNumber | None = Field(2, ge=1, description="checkpoints kept under RUN/checkpoints, the "
                                                                      "newest (--resume needs the last); None: all")
    trackio: StrictBool = Field(False, description="also log to trackio (local)")
    extra_grpo_args: dict[str, Any] = Field(default_factory=dict,
                                            description="any other GRPOConfig keyword, passed through verbatim")


class SFTSection(_Section):
    # measured with the CPU default (17 demonstrations): after 8 steps it painted none of 8 test paintings (its
    # arguments were wrong or it called nothing), after 40 (2.4 epochs) 3 of 8, rewards 0.07-0.67: GRPO gets signal
    steps: WholeNumber = Field(40, ge=1, description="warm-start optimisation steps")
    learning_rate: RealNumber = Field(5e-4, gt=0, description="warm-start learning rate")
    batch_size: WholeNumber = Field(1, ge=1, description="warm-start examples per step")
    train_layers: WholeNumber | None = Field(6, ge=1, description="train only the top N decoder layers (None: all)")
    max_length: WholeNumber = Field(2048, ge=64, description="warm-start sequence cap (tokens)")
    tiers: list[Tier] = Field(["love", "okay"], min_length=1, description="pool tiers used as demonstrations")
    auto: StrictBool = Field(True, description="run the warm start first when the policy cannot call tools yet")


class EnvSection(_Section):
    action_space: str = Field("hf10", description="'hf10', 'full' or a comma-separated list of brush methods")
    urls: list[str] = Field(default_factory=list, description="env server URLs (round-robin); empty = in-process")
    reconnect_s: RealNumber = Field(180.0, ge=0, le=86400, allow_inf_nan=False,
                                    description="how long an unreachable env server is retried before its episodes "
                                                "score None (a restart takes seconds; once one episode gave up, the "
                                                "others of that outage try a few times only)")
    max_steps: WholeNumber = Field(16, ge=1, description="tool calls an episode may make (tools mode)")
    revisions: WholeNumber = Field(1, ge=0, description="revision rounds (revise mode)")
    hide_tools: list[str] = Field(["beginShape", "vertex", "endShape"],
                                  description="tools not offered to the policy (the compact `shape` tool covers them); "
                                              "every tool's schema is in the prompt of every turn")
    observation_chars: WholeNumber = Field(120, ge=40, description="cap on a tool result's text (it costs tokens)")
    revise_observation_chars: WholeNumber = Field(
        600, ge=40, description="the same cap in revise mode, whose results carry the critique the mode is for "
                                "(at 120 characters none of it was left)")
    image_size: WholeNumber = Field(256, ge=32, le=2048,  # the bounds of the env's reset keyword image_size
                            description="size rollout images are scored and saved at (the painting, resampled), "
                                        "sent with every episode's reset: in-process and on env servers alike")


class RewardSection(_Section):
    preset: Preset = Field("judge-led", description="reward weights preset")
    weights: dict[str, RealNumber] | None = Field(None, description="custom {gate, length, judge, preference}; beats preset")
    judge_backend: Literal["local", "openai"] = Field("local", description="pairwise judge backend")
    judge_url: str | None = Field(None, description="OpenAI-compatible base URL (openai backend)")
    judge_model: str | None = Field(None, description="judge model name, e.g. Qwen/Qwen3-VL-30B-A3B-Instruct")
    judge_api_key_env: str | None = Field(None, description="name of the environment variable holding the key")
    preference_backend: Literal["local", "hpsv3"] = Field("local", description="preference scorer backend")
    preference_url: str | None = Field(None, description="URL of `aquarelle serve-hps` (hpsv3 backend)")
    extra: dict[str, Any] = Field(default_factory=dict, description="other RewardConfig fields, passed through")

    def reward_config(self) -> dict[str, Any]:
        """The keyword dict for aquarelle.rewards.RewardConfig (only what was set)."""
        d = {k: v for k, v in self.model_dump().items() if k not in ("preset", "weights", "extra") and v is not None}
        d.update(self.extra)
        return d

    def scorer_config(self) -> Any:
        """The ``aquarelle.rewards.RewardConfig`` this section scores with: ``reward_config()`` with the preset and
        weights (the whole of what a run's in-process scorer uses, and what an env server must match)."""
        from ..rewards.config import RewardConfig

        return RewardConfig(**self.reward_config(), preset=self.preset, weights=self.weights)


class TrainConfig(_Section):
    mode: Mode = Field("tools", description="tools (multi-turn brush calls), sketch (one JS sketch) or revise")
    model: ModelSection = ModelSection()
    generation: GenerationSection = GenerationSection()
    optim: OptimSection = OptimSection()
    sft: SFTSection = SFTSection()
    env: EnvSection = EnvSection()
    reward: RewardSection = RewardSection()
    prompts: str | None = Field(None, description="prompt file (default: the pool's pool/prompts.json)")


class ConfigError(ValueError):
    """A config file or flag is wrong (one line naming the key)."""


def load_config(path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read a YAML/JSON file (or defaults) and apply dotted-key overrides, e.g. {"optim.max_steps": 3}."""
    data = read_mapping(path, "config file", ConfigError) if path is not None else {}
    return config_from(data, overrides)


def _extra_hint(err: dict) -> str:
    """Where a reward setting that is not one of the reward section's own keys goes: ``reward.judge_timeout_s``
    said only "Extra inputs are not permitted"."""
    loc = err.get("loc") or ()
    if err.get("type") != "extra_forbidden" or len(loc) != 2 or loc[0] != "reward":
        return ""
    from aquarelle.rewards.config import RewardConfig

    if loc[1] in RewardConfig.model_fields:
        return f" (a RewardConfig field: put it under reward.extra, as `extra: {{{loc[1]}: ...}}`)"
    return ""


def config_from(data: dict[str, Any], overrides: dict[str, Any] | None = None) -> TrainConfig:
    """The config a file's mapping gives (``load_config`` once the file is read), with dotted-key overrides."""
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        node = data
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    try:
        cfg = TrainConfig.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        # a union's branches are in loc too ("model.train_layers.function-before[check(), int]"): not keys
        where = ".".join(str(x) for x in err["loc"] if not isinstance(x, str) or "[" not in x)
        raise ConfigError(f"config key {where}: {err['msg']}{_extra_hint(err)}") from None
    _check_reward(cfg.reward)
    _check_hide_tools(cfg.env.hide_tools)
    _check_action_space(cfg.env.action_space)
    return cfg


def check_settings(cfg: TrainConfig) -> None:
    """Settings a new run would ignore, or fail on after its model (and a warm start) loaded, said in one line
    before (``preflight``, for a new run only: a saved run's config.json is read as it trained).

    Why each: ``train_layers: 0`` trained every layer; empty or comma-list LoRA targets failed inside PEFT naming
    no key; a vLLM server URL in colocate mode ran vLLM inside the trainer; a judge URL or model without
    ``judge_backend: openai`` (a preference URL without hpsv3) was scored by the built-in scorer without a word."""
    import re

    from ..rewards.config import _http_parts, unread_service_key

    m, g = cfg.model, cfg.generation
    if isinstance(m.train_layers, int) and m.train_layers < 1:
        raise ConfigError(f"config key model.train_layers: must be at least 1 (or all), got {m.train_layers}")
    t = m.lora_target_modules
    if m.lora and isinstance(t, list) and not t:
        raise ConfigError("config key model.lora_target_modules: empty: name the modules ([q_proj, v_proj]) or "
                          "all-linear")
    if m.lora and isinstance(t, str) and re.fullmatch(r"\s*\w+(\s*,\s*\w+)+\s*", t):  # a list, not a regex
        raise ConfigError(f"config key model.lora_target_modules: {t!r} is one regular expression to PEFT, not a "
                          f"list: write [{', '.join(x.strip() for x in t.split(','))}]")
    if g.use_vllm and g.vllm_server_base_url is not None:
        if g.vllm_mode != "server":
            raise ConfigError("config key generation.vllm_server_base_url: set, but vllm_mode is colocate (vLLM "
                              "inside the trainer reads no URL): add vllm_mode: server")
        if _http_parts(g.vllm_server_base_url) is None:
            raise ConfigError(f"config key generation.vllm_server_base_url: {g.vllm_server_base_url!r} is not an "
                              "http(s) URL with a host: give one like http://vllm:8000")
    shadowed = sorted(k for k in cfg.reward.extra if k in RewardSection.model_fields)
    if shadowed:  # `extra: {judge_backend: ...}` silently beat the section's own key
        raise ConfigError(f"config key reward.extra.{shadowed[0]}: set reward.{shadowed[0]} instead (extra holds "
                          f"the other RewardConfig fields)")
    unread = unread_service_key(cfg.reward.model_dump(exclude_none=True))
    if unread:
        raise ConfigError(f"config key reward.{unread[0]}: {unread[1]}")


#: Tools the TRL tool class adds to the brush methods (tools mode: ``shape``, ``finish``; revise: ``submit_sketch``).
EXTRA_TOOLS = ("shape", "finish", "submit_sketch")


def _check_action_space(spec: str) -> None:
    """An unknown space (``hf11``) or method must name the key, as every other wrong value does, and stop the
    command before it makes its run directory (it used to surface later, as a bare "unknown action space")."""
    from ..brush.commands import CommandError
    from ..brush.action_space import get_space

    try:
        get_space(spec)
    except CommandError as e:
        raise ConfigError(f"config key env.action_space: {e}") from None


def _check_hide_tools(names: list[str]) -> None:
    """A name no tool has would hide nothing, silently (a method outside the action space is fine: the default
    list names beginShape/vertex/endShape, which a custom space may leave out)."""
    from ..brush.commands import SPECS

    unknown = [n for n in names if n not in SPECS and n not in EXTRA_TOOLS]
    if unknown:
        raise ConfigError(f"config key env.hide_tools: {unknown[0]!r} is not a brush method or a tool "
                          f"({', '.join(EXTRA_TOOLS)})")


def _check_reward(section: RewardSection) -> None:
    """Build the scorers' config now, as a run will: a wrong ``reward.extra`` field or weight term must stop the
    command with one line naming it, not a warm start that took minutes (the scorers are built after it)."""
    from ..rewards.config import RewardConfig

    own = sorted(k for k in section.extra if k in ("preset", "weights", "extra"))
    if own:  # `extra: {preset: ...}` was a 44-line TypeError ("got multiple values for keyword argument")
        raise ConfigError(f"config key reward.extra.{own[0]}: set reward.{own[0]} instead (extra holds the other "
                          f"RewardConfig fields)")
    try:
        RewardConfig(**section.reward_config(), preset=section.preset, weights=section.weights)
    except ValidationError as e:
        err = e.errors()[0]
        loc = [str(x) for x in err.get("loc", ())]
        msg = str(err["msg"]).removeprefix("Value error, ")
        where = ("reward.extra." if loc and loc[0] in section.extra else "reward.") + ".".join(loc or ["weights"])
        raise ConfigError(f"config key {where}: {msg}") from None


def documented_keys(model: type[BaseModel] = TrainConfig, prefix: str = "") -> list[str]:
    """Every dotted key of the config (docs/config.md must name each one)."""
    keys = []
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            keys += documented_keys(ann, prefix + name + ".")
        else:
            keys.append(prefix + name)
    return keys
