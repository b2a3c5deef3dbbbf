"""Which process of a multi-process launch (``accelerate launch``, ``torchrun``) this is, and the few collectives
the run directory needs.

Why: under ``accelerate launch --num_processes N`` every process runs ``train()``. The run directory must still be
the one a single-process run writes: one preflight, one config.json, one warm start, every rollout once with
global image names and TRL's group numbers, one metrics line per step over all processes' rollouts. So the main
process (rank 0) alone writes the run directory; the others hand it what they scored.

Import-light (no torch at module level): the CLI asks ``Procs.from_env()`` which process prints the summary.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

#: (rank, world size) variables, in accelerate's order: torchrun, then the MPI launchers
_RANK_ENV = (("RANK", "WORLD_SIZE"), ("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
             ("MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"))
#: what makes torch/accelerate in a child process believe it is one of the launch's processes
_DIST_ENV_PREFIXES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
                      "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_",
                      "PMI_", "OMPI_COMM_WORLD_", "MV2_COMM_WORLD_", "MPI_LOCAL")


@dataclass(frozen=True)
class Procs:
    """This process's rank among ``world`` processes (0 of 1 for a plain run)."""

    rank: int = 0
    world: int = 1

    @property
    def main(self) -> bool:
        return self.rank == 0

    @classmethod
    def from_env(cls) -> "Procs":
        for r, w in _RANK_ENV:
            if os.environ.get(w):
                try:
                    return cls(rank=int(os.environ.get(r) or 0), world=max(int(os.environ[w]), 1))
                except ValueError:
                    continue
        return cls()

    # collectives: every process must call each of them, in the same order; with one process they do nothing

    def connect(self, grpo_args: Any) -> None:
        """Join the launch's process group, as the trainer will (its device setup, with the run's ddp settings)."""
        if self.world > 1:
            grpo_args.device  # noqa: B018 - TrainingArguments sets up accelerate's state and torch.distributed here

    def gather(self, items: list) -> list:
        """Every process's ``items``, concatenated in rank order, on every process."""
        if self.world == 1:
            return list(items)
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, list(items))
        return [x for part in out for x in part]

    def broadcast(self, obj: Any) -> Any:
        """The main process's ``obj`` on every process (the others wait here for the main one)."""
        if self.world == 1:
            return obj
        import torch.distributed as dist

        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]


    def close(self) -> None:
        """Leave the launch's process group once the run is done, every process together (a barrier, then
        ``destroy_process_group``). Left to the interpreter's exit, the group's gloo threads were torn down while it
        lived: "terminate called without an active exception" and exit -6 on rank 0 after a finished two-process
        run (seen once in CI, 2026-12-04)."""
        if self.world == 1:
            return
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            dist.barrier()
            dist.destroy_process_group()


def single_process_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) without what would make a child join the launch's process group."""
    env = dict(os.environ if env is None else env)
    return {k: v for k, v in env.items() if not k.startswith(_DIST_ENV_PREFIXES)}


def launched_as_one() -> bool:
    """``accelerate launch --cpu --num_processes N`` (N > 1, no --mpirun_hostfile) starts ONE process: accelerate
    sets MASTER_ADDR for N processes but its simple launcher runs a single python (accelerate 1.15)."""
    return (os.environ.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true", "yes") and "MASTER_ADDR" in os.environ
            and Procs.from_env().world == 1)
