"""Distributed: real multi-process training with DistributedDataParallel.

One process per rank. Every rank holds a copy of the model and trains on its own share of the
data; DistributedDataParallel keeps the copies identical by averaging the gradients of all the
ranks during `backward()`. The `gloo` backend runs on CPUs, so this works on any laptop; on a
GPU host `nccl` does the same with one GPU per rank.
"""

from __future__ import annotations

import numbers
import pickle
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist  # given: where the calls live is not the lesson
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler

# BEGIN SOLUTION
# isort: split
import tempfile
import time

# END SOLUTION

TRAINING = ("model_fn", "dataset", "epochs", "batch_size", "lr", "seed")
"""train_rank's keyword arguments that `run` passes on (it makes `init_method` itself)."""


def _check_counts(**counts: tuple[object, int]) -> None:
    for name, (value, least) in counts.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {value!r}")
        if value < least:
            raise ValueError(f"{name} must be an int of at least {least}, not {value!r}")


def _check_training(where: str, model_fn, dataset, epochs, batch_size, lr, seed) -> None:
    _check_counts(epochs=(epochs, 0), batch_size=(batch_size, 1))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"{where}: seed must be an int, not {seed!r}")
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"{where}: lr must be a number, not {lr!r}")
    if not callable(model_fn):
        raise TypeError(f"{where}: model_fn must be callable, not {type(model_fn).__name__}")
    if not hasattr(dataset, "__getitem__") or not hasattr(dataset, "__len__"):
        raise TypeError(f"{where}: dataset must have __len__ and __getitem__")


def _device_for(rank: int, world_size: int) -> torch.device:
    """One GPU per rank when there are enough GPUs for every rank; otherwise the CPU."""
    if torch.cuda.is_available() and torch.cuda.device_count() >= world_size:
        return torch.device("cuda", rank)
    return torch.device("cpu")


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
    """Train as rank `rank` of `world_size` processes that meet at `init_method`, on the
    device chosen for the rank; return the trained model's state dict (the model's own keys),
    every tensor on the CPU.

    The model is `model_fn()` built after seeding with `seed`, and trained for `epochs` epochs
    of SGD (`lr`) on the mean squared error. Every epoch is a new shuffle of `dataset`, as when
    one process trains with `DataLoader(dataset, shuffle=True)`; the rank reads its own shard
    of it, `batch_size` samples at a time, the shard and the order that
    `DistributedSampler(dataset, shuffle=True, seed=seed)` gives. Each step's gradient is
    averaged over all the ranks by one `DistributedDataParallel` wrapper: every rank ends with
    the model one process would train on all the ranks' batches at once.

    The rank leaves the process group however it ends; when training is done, the wrapper is
    gone before the group is. Bad arguments are refused by the given checks (before joining),
    and `device` is chosen for you.
    """
    _check_counts(
        rank=(rank, 0), world_size=(world_size, 1), epochs=(epochs, 0), batch_size=(batch_size, 1)
    )
    if rank >= world_size:
        raise ValueError(f"rank must be below world_size={world_size}, not {rank!r}")
    device = _device_for(rank, world_size)
    # BEGIN SOLUTION: join the group on `device`, train as one of the ranks, and leave
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


def _rank_main(rank: int, world_size: int, kwargs: dict, results: str) -> None:
    """What each rank's process may run: train, then leave the state dict for the parent in
    the directory `results`, as `rank{rank}.pt`."""
    state = train_rank(rank, world_size, **kwargs)
    torch.save(state, Path(results) / f"rank{rank}.pt")


def run(world_size: int, *, timeout: float = 300.0, **kwargs) -> list[dict[str, torch.Tensor]]:
    """Run `train_rank` on `world_size` spawned processes (fresh interpreters, never forks of
    this one); return each rank's state dict, in rank order.

    `kwargs` are `train_rank`'s keyword arguments except `init_method`: the ranks meet in a
    fresh temporary directory. A failing rank's error is raised; a run that is not done after
    `timeout` seconds raises TimeoutError; either way, no rank is left running. Bad arguments
    are refused by the given checks, and `_rank_main` is a function a rank's process can run.
    """
    _check_counts(world_size=(world_size, 1))
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise TypeError(f"run: timeout must be a number of seconds, not {timeout!r}")
    if not timeout > 0:
        raise ValueError(f"run: timeout must be more than 0 seconds, not {timeout!r}")
    missing = [name for name in TRAINING if name not in kwargs]
    unknown = [name for name in kwargs if name not in TRAINING]
    if missing or unknown:
        raise TypeError(
            f"run: missing {missing or 'nothing'}, unknown {unknown or 'nothing'}; it takes "
            f"{', '.join(TRAINING)} (init_method is made by run)"
        )
    _check_training("run", **kwargs)
    try:
        pickle.dumps(kwargs["model_fn"])
    except Exception as err:
        raise TypeError(
            f"run: model_fn cannot be sent to the ranks ({err}); use a function defined at the "
            "top of a module, or a functools.partial of one"
        ) from None
    # BEGIN SOLUTION: start the ranks, wait for them (never past `timeout`), collect their states
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
