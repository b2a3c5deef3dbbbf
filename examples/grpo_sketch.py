"""GRPO on whole p5.brush sketches in one plain TRL script: the recipe `aquarelle train --mode sketch` wraps.

The policy answers each prompt with one complete sketch; the reward function runs it in the sandbox, paints it and
scores it (the gate, the length term, the judge and the preference, weighted by the preset). What `aquarelle train`
adds around this (the warm start, the checks before the model loads, rollouts.jsonl and metrics for `eval` and
`report`) is left out, so the script can be copied and changed.

    python examples/grpo_sketch.py --model MODEL --out runs/recipe [--env-url http://127.0.0.1:8000]

The sketches are painted and scored in this process, or on the `aquarelle serve` servers given with --env-url
(round-robin), which score with their own reward config.
"""

from __future__ import annotations

import argparse

import torch
from trl import GRPOConfig, GRPOTrainer

from aquarelle.train.completion import completion_text
from aquarelle.train.config import load_config
from aquarelle.train.data import load_prompts, prompt_dataset
from aquarelle.train.envglue import EnvTimer, SketchScorer
from aquarelle.train.model import SYSTEMS


def make_reward(preset: str, env_urls: list[str]):
    """A reward function scoring each completion's sketch: the gate's 0 (with why) for code that does not run or
    paints nothing, None, not 0, when a scorer or server failed (TRL leaves those rollouts out of the update)."""
    scorer = SketchScorer(load_config(None, {"reward.preset": preset, "env.urls": env_urls}), EnvTimer())

    def painting_reward(completions, painting_prompt, seed, **kwargs) -> list[float | None]:
        rewards = []
        for completion, prompt, s in zip(completions, painting_prompt, seed):
            # a chat completion is a list of messages: the sketch is in the assistant's
            _, outcome = scorer.score_completion(completion_text(completion), prompt=prompt, seed=s, preset=preset,
                                                 weights=None)
            rewards.append(outcome.reward)
        return rewards

    return painting_reward


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="Hub id or local directory of a causal LM with a chat template")
    ap.add_argument("--out", required=True, help="where checkpoints are written")
    ap.add_argument("--env-url", action="append", default=[], help="an `aquarelle serve` URL (repeatable)")
    ap.add_argument("--preset", default="judge-led", help="judge-led, hps-led or hps-only")
    ap.add_argument("--prompts", default=None, help="prompt file (default: the pool's prompts.json)")
    ap.add_argument("--max-steps", type=int, default=10)
    ap.add_argument("--num-generations", type=int, default=4)
    ap.add_argument("--max-completion-length", type=int, default=1024)
    args = ap.parse_args()

    # one row per training prompt: the chat prompt TRL samples, and the columns the reward reads (painting_prompt,
    # seed: the group's seed, so a group's sketches are judged against the same references)
    dataset = prompt_dataset(load_prompts(args.prompts, split="train"), mode="sketch", system=SYSTEMS["sketch"],
                             action_space="hf10", preset=args.preset, seed=0, max_steps=1, revisions=1)
    cuda = torch.cuda.is_available()
    config = GRPOConfig(output_dir=args.out, max_steps=args.max_steps, num_generations=args.num_generations,
                        per_device_train_batch_size=args.num_generations, learning_rate=1e-5,
                        max_completion_length=args.max_completion_length, logging_steps=1,
                        save_steps=args.max_steps, report_to=[], use_cpu=not cuda, bf16=cuda)
    trainer = GRPOTrainer(model=args.model, reward_funcs=make_reward(args.preset, args.env_url), args=config,
                          train_dataset=dataset)
    trainer.train()
    trainer.save_model(args.out)
    print(f"saved the trained policy to {args.out}; paint with it: aquarelle paint {args.out} \"a red sun\" "
          "--mode sketch")


if __name__ == "__main__":
    main()
