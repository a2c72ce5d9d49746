"""Distributed: real multi-process training with DistributedDataParallel.

One process per rank. Each joins the process group, builds the same model, wraps it in DDP and
trains on its own shard of the data (DistributedSampler); during `backward()` DDP averages the
gradients of all ranks, so every rank takes the same step and the copies never drift apart.
The `gloo` backend runs on CPUs, so this works on any laptop; on a GPU host `nccl` does the
same with one GPU per rank.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs distributed

Check it:  python -m katas check distributed
Stuck?     python -m katas hint distributed   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler


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
    """Train as rank `rank` of `world_size` processes; return the final state dict (CPU tensors).

    The device: `cuda:{rank}` with the `nccl` backend when there is a GPU for every rank,
    otherwise the CPU with `gloo`. Every rank seeds with `seed` before `model_fn()`, so all start
    from the same weights (DDP also broadcasts rank 0's at construction). The model is moved to
    the device *before* DDP wraps it. Each rank reads its shard, `DistributedSampler(...,
    shuffle=True, seed=seed)`, reshuffled every epoch by `set_epoch`, and takes SGD steps on the
    mean squared error; DDP averages the gradients across ranks. The process group is destroyed
    on the way out, even when something fails.
    """
    # TODO(distributed): write train_rank; the docstring above is the contract.
    raise NotImplementedError("distributed: train_rank")


def run(world_size: int, *, timeout: float = 300.0, **kwargs) -> list[dict[str, torch.Tensor]]:
    """Train on `world_size` spawned processes; return each rank's state dict, in rank order.

    `kwargs` are `train_rank`'s keyword arguments except `init_method`: the ranks meet through
    a file store in a fresh temporary directory (`file://...`), which needs no free port. Each
    rank saves its state dict there, and the parent loads them once every rank has exited.

    `torch.multiprocessing.spawn` watches all ranks: when one fails, it stops the others and
    raises its error (`ProcessRaisedException`, with the rank's traceback). After `timeout`
    seconds, the ranks are killed and TimeoutError is raised, so a stuck rank never hangs the
    caller.
    """
    # TODO(distributed): write run; the docstring above is the contract.
    raise NotImplementedError("distributed: run")
