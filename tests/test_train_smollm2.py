"""The CPU default end to end: SmolLM2-135M from its PyPI GGUF, a short warm start, one real GRPO step in tools mode.

Slow (about two minutes on two cores) but it runs in CI: it is the only test of the
real default policy, its chat template and the pool's demonstrations together.
"""

from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_smollm2_warm_start_and_one_grpo_step(tmp_path, monkeypatch):
    monkeypatch.setenv("AQUARELLE_CACHE", str(tmp_path / "cache"))  # from an empty cache: convert + warm start
    from aquarelle.train.config import load_config
    from aquarelle.train.grpo import train
    from aquarelle.train.model import SMOLLM2, load_policy, qwen2_5_template

    cfg = load_config(None, {"optim.max_steps": 1, "generation.num_generations": 2,
                             "generation.max_completion_length": 48, "generation.max_tool_calling_iterations": 1,
                             "sft.steps": 2, "sft.batch_size": 1, "env.image_size": 64})
    run = tmp_path / "run"
    summary = train(cfg, run)
    assert summary["steps"] == 1

    # the default policy was converted once, with TRL's qwen2_5 template, and warm-started into the cache
    pol = load_policy(SMOLLM2)
    assert pol.model.config.model_type == "llama" and pol.tokenizer.chat_template == qwen2_5_template()
    assert not hasattr(pol.model.config, "quantization_config")
    conf = json.loads((run / "config.json").read_text())
    warm = conf["warm_start"]
    assert warm and str(tmp_path / "cache") in warm
    info = json.loads(open(f"{warm}/aquarelle.json").read())
    assert info["can_call_tools"] and info["examples"] >= 10  # the pool's love/okay hf10 paintings

    m = json.loads((run / "metrics.jsonl").read_text().splitlines()[0])
    assert m["step"] == 1 and m["loss"] is not None and m["step_time"] > 0
    rollouts = [json.loads(x) for x in (run / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 and all(r["mode"] == "tools" for r in rollouts)
    # a 48-token budget cannot finish a painting: the gate gives 0 (the model's fault), never None
    assert all(r["reward"] is not None for r in rollouts)
    assert (run / "checkpoint" / "model.safetensors").is_file()
