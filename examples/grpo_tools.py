"""GRPO on aquarelle's painting tools in one plain TRL script: the recipe `aquarelle train --mode tools` wraps.

The policy paints brush call by brush call: TRL builds one environment per rollout from the class
``make_tool_env`` returns (``environment_factory``), turns its public methods (``fill``, ``circle``, ``shape``,
``finish``, ...) into tools, and the reward function reads each finished episode's score. What `aquarelle train`
adds around this (the warm start, the checks before the model loads, rollouts.jsonl and metrics for `eval` and
`report`) is left out, so the script can be copied and changed.

    python examples/grpo_tools.py --model MODEL --out runs/recipe [--env-url http://127.0.0.1:8000]

MODEL must already call tools: a Hub instruct model whose chat template takes tools (on a GPU), or a warm-started
checkpoint such as `aquarelle sft --mode tools --out runs/sft` writes. The episodes run in this process, or on the
`aquarelle serve` servers given with --env-url (round-robin), which score with their own reward config.
"""

from __future__ import annotations

import argparse

import torch
from trl import GRPOConfig, GRPOTrainer

from aquarelle.train import make_tool_env
from aquarelle.train.data import load_prompts, prompt_dataset
from aquarelle.train.model import SYSTEMS


def painting_reward(environments, **kwargs) -> list[float | None]:
    """Each episode's composite reward (an unfinished painting is finished and scored first). None, not 0, when
    a scorer or server failed: TRL leaves those rollouts out of the update."""
    return [env.reward for env in environments]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a tool-calling model: Hub id or local directory")
    ap.add_argument("--out", required=True, help="where checkpoints are written")
    ap.add_argument("--env-url", action="append", default=[], help="an `aquarelle serve` URL (repeatable)")
    ap.add_argument("--action-space", default="hf10", help="hf10, full, or a comma list of brush methods")
    ap.add_argument("--prompts", default=None, help="prompt file (default: the pool's prompts.json)")
    ap.add_argument("--max-steps", type=int, default=10)
    ap.add_argument("--num-generations", type=int, default=4)
    ap.add_argument("--max-completion-length", type=int, default=640)
    ap.add_argument("--tool-turns", type=int, default=4, help="tool-calling turns per episode")
    args = ap.parse_args()

    # the episode: 16 tool steps, tool results cut at 120 characters, paintings scored at 256 px (training's defaults)
    env_cls = make_tool_env("tools", args.action_space, env_urls=args.env_url or None, max_steps=16, obs_chars=120,
                            image_size=256)
    # one row per training prompt: the chat prompt TRL samples, and what the environment's reset(**row) reads
    dataset = prompt_dataset(load_prompts(args.prompts, split="train"), mode="tools", system=SYSTEMS["tools"],
                             action_space=args.action_space, preset="judge-led", seed=0, max_steps=16, revisions=1)
    config = GRPOConfig(output_dir=args.out, max_steps=args.max_steps, num_generations=args.num_generations,
                        per_device_train_batch_size=args.num_generations, learning_rate=1e-5,
                        max_completion_length=args.max_completion_length,
                        max_tool_calling_iterations=args.tool_turns, logging_steps=1, save_steps=args.max_steps,
                        report_to=[], use_cpu=not torch.cuda.is_available(), bf16=torch.cuda.is_available())
    trainer = GRPOTrainer(model=args.model, reward_funcs=painting_reward, args=config, train_dataset=dataset,
                          environment_factory=env_cls)
    trainer.train()
    trainer.save_model(args.out)
    print(f"saved the trained policy to {args.out}; paint with it: aquarelle paint {args.out} \"a red sun\"")


if __name__ == "__main__":
    main()
