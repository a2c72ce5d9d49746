"""Distributed: real multi-process training with DistributedDataParallel.

One process per rank. Every rank holds a copy of the model and trains on its own share of the
data; DistributedDataParallel keeps the copies identical by averaging the gradients of all the
ranks during `backward()`. The `gloo` backend runs on CPUs, so this works on any laptop; on a
GPU host `nccl` does the same with one GPU per rank.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs distributed

Check it:  python -m katas check distributed
Stuck?     python -m katas hint distributed   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn
from torch.utils.data import Dataset


def train_rank(
    rank: int,
    world_size: int,
    *,
    init_method: str,
    model_fn: Callable[[], nn.Module],
    dataset: Dataset,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
) -> dict[str, torch.Tensor]:
    """Train as rank `rank` of `world_size` processes that meet at `init_method`; return the
    trained model's state dict (the model's own keys), every tensor on the CPU.

    - Device: `cuda:{rank}` when there is a GPU for every rank, otherwise the CPU.
    - Every rank starts from the same weights: `model_fn()` built after seeding with `seed`.
    - Each rank reads only its shard: the samples `DistributedSampler(dataset, shuffle=True,
      seed=seed)` assigns to it, in a new order every epoch, `batch_size` at a time.
    - Each step is SGD (`lr`) on the mean squared error, with the gradient averaged over all
      ranks by one `DistributedDataParallel` wrapper around the model, made once the model is
      on its device: every rank takes the same step, and the result equals one process
      training on all the ranks' batches at once.
    - A rank, world size, epoch count or batch size out of range raises ValueError (one that
      is not an int: TypeError), before the process group is joined.
    - The process group is destroyed however the rank ends; when training is done, the
      wrapper is gone before the group is.
    """
    # TODO(distributed): write train_rank; the docstring above is the contract.
    raise NotImplementedError("distributed: train_rank")


def run(world_size: int, *, timeout: float = 300.0, **kwargs) -> list[dict[str, torch.Tensor]]:
    """Run `train_rank` on `world_size` spawned processes (fresh interpreters, never forks of
    this one); return each rank's state dict, in rank order.

    `kwargs` are `train_rank`'s keyword arguments except `init_method`: `run` makes its own, a
    meeting place in a fresh temporary directory. Every argument is checked before any process
    starts: TypeError for a missing, unknown or mistyped argument (`timeout` is a number of
    seconds; `model_fn` must be picklable, since it is sent to the ranks), ValueError for a
    count or a timeout out of range. When a rank fails, `run` raises an error that carries that
    rank's own, and leaves no rank running. After `timeout` seconds it kills the ranks and
    raises TimeoutError.
    """
    # TODO(distributed): write run; the docstring above is the contract.
    raise NotImplementedError("distributed: run")
