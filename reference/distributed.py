"""Distributed: real multi-process training with DistributedDataParallel.

One process per rank. Each joins the process group, builds the same model, wraps it in DDP and
trains on its own shard of the data (DistributedSampler); during `backward()` DDP averages the
gradients of all ranks, so every rank takes the same step and the copies never drift apart.
The `gloo` backend runs on CPUs, so this works on any laptop; on a GPU host `nccl` does the
same with one GPU per rank.
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


# BEGIN SOLUTION
def _check_counts(**counts: int) -> None:
    for name, (value, least) in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an int of at least {least}, not {value!r}")


# END SOLUTION


# BEGIN SOLUTION
def _device_for(rank: int, world_size: int) -> torch.device:
    """One GPU per rank when there are enough GPUs for every rank; otherwise the CPU."""
    if torch.cuda.is_available() and torch.cuda.device_count() >= world_size:
        return torch.device("cuda", rank)
    return torch.device("cpu")


# END SOLUTION


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
    # BEGIN SOLUTION
    _check_counts(world_size=(world_size, 1), epochs=(epochs, 0), batch_size=(batch_size, 1))
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < world_size:
        raise ValueError(f"rank must be an int in [0, {world_size}), not {rank!r}")
    device = _device_for(rank, world_size)
    if device.type == "cuda":
        torch.cuda.set_device(device)  # nccl talks to the current GPU
    backend = dist.get_default_backend_for_device(device)  # gloo for cpu, nccl for cuda
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
    try:
        return _fit(rank, world_size, device, model_fn, dataset, epochs, batch_size, lr, seed)
    finally:
        # After _fit has returned, so its DDP wrapper is already gone (see _fit).
        dist.destroy_process_group()
    # END SOLUTION


# BEGIN SOLUTION
def _fit(rank, world_size, device, model_fn, dataset, epochs, batch_size, lr, seed):
    """Build, wrap and train; return the CPU state dict.

    The DDP wrapper lives only in this function, and is freed when it returns, before the
    caller destroys the group. Freed after, it can deadlock torch 2.13: its reducer would drop
    the group's last reference while holding the GIL, and the group then waits for its gloo
    threads, one of which may be waiting for the GIL to finish an all-reduce started during
    backward (whose thread-local state holds a Python object: `_engine_run_backward` in
    torch/autograd/graph.py). Freed from `destroy_process_group()`, the group releases the GIL
    first (`IntrusivePtrNoGilDestructor` in torch/csrc/distributed/c10d/init.cpp).
    """
    torch.manual_seed(seed)  # the same seed on every rank: the same starting weights
    model = model_fn().to(device)  # move first, then wrap
    ddp = DistributedDataParallel(model, device_ids=[rank] if device.type == "cuda" else None)
    sampler = DistributedSampler(
        dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed
    )
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            loss_fn(ddp(inputs), targets).backward()  # DDP all-reduces the gradients here
            optimizer.step()
    # The unwrapped model's keys have no "module." prefix; clone so nothing shares memory.
    return {name: t.detach().cpu().clone() for name, t in model.state_dict().items()}


# END SOLUTION


# BEGIN SOLUTION
def _rank_main(rank: int, world_size: int, kwargs: dict, results: str) -> None:
    """What each spawned process runs: train, then leave the state dict for the parent."""
    state = train_rank(rank, world_size, **kwargs)
    torch.save(state, Path(results) / f"rank{rank}.pt")


# END SOLUTION


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
    # BEGIN SOLUTION
    _check_counts(world_size=(world_size, 1))
    if "init_method" in kwargs:
        raise TypeError("run() makes its own init_method; do not pass one")
    with tempfile.TemporaryDirectory(prefix="katas-ddp-") as tmp:
        kwargs = {**kwargs, "init_method": (Path(tmp) / "rendezvous").as_uri()}
        ranks = mp.spawn(_rank_main, args=(world_size, kwargs, tmp), nprocs=world_size, join=False)
        deadline = time.monotonic() + timeout
        while not ranks.join(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                for process in ranks.processes:
                    process.kill()
                    process.join()
                raise TimeoutError(f"run({world_size}): the ranks did not finish in {timeout} s")
        return [
            torch.load(Path(tmp) / f"rank{rank}.pt", weights_only=True)
            for rank in range(world_size)
        ]
    # END SOLUTION
