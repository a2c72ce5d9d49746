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
    # TODO(distributed): join the group on `device`, train as one of the ranks, and leave
    raise NotImplementedError("distributed: train_rank")


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
    # TODO(distributed): start the ranks, wait for them (never past `timeout`), collect their states
    raise NotImplementedError("distributed: run")
