"""Joins the group, wraps the model and shards the data, but never leaves the group, does
not seed before building the model, and trusts the sampler to reshuffle by itself each epoch.

Written from: the kata page and the stub only.
Message: told no new epoch repeats one shuffle

Written by a learner (a student after the 60-minute blitz only, who writes an attempt with the
torch the blitz teaches and the names the page shows, then checks it and reads the verdict)
as the first attempt of the eighth measure, before any check, on 2026-11-27; kept as written.
"""

from __future__ import annotations

import numbers
import pickle
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import Dataset


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
    # join the group on `device`, train as one of the ranks, and leave
    import torch.distributed as dist  # guessed: the page talks of a "process group"
    from torch.utils.data import DataLoader, DistributedSampler

    backend = "nccl" if device.type == "cuda" else "gloo"
    # guessed name: "init" a "process group" with the page's init_method, rank, world_size
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
    # TODO: seed torch's random numbers with `seed` here (I don't know the call for it)
    model = model_fn().to(device)
    ddp = nn.parallel.DistributedDataParallel(model)  # like nn.DataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=lr)
    criterion = nn.MSELoss()
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            loss = criterion(ddp(inputs), targets)
            loss.backward()
            optimizer.step()
    del ddp
    state = {k: v.detach().to("cpu") for k, v in model.state_dict().items()}
    # TODO: leave the group -- I don't know how it is called
    return state


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
    import multiprocessing
    import tempfile
    import time

    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        init_method = "file://" + str(Path(tmp) / "rendezvous")
        rank_kwargs = dict(kwargs, init_method=init_method)
        procs = [
            ctx.Process(target=_rank_entry, args=(rank, world_size, rank_kwargs, tmp))
            for rank in range(world_size)
        ]
        for p in procs:
            p.start()
        deadline = time.monotonic() + timeout
        try:
            while True:
                for rank, p in enumerate(procs):
                    if p.exitcode is not None and p.exitcode != 0:
                        err_file = Path(tmp) / f"rank{rank}.err"
                        if err_file.exists():
                            with open(err_file, "rb") as f:
                                raise pickle.load(f)
                        raise RuntimeError(f"rank {rank} exited with code {p.exitcode}")
                if all(p.exitcode == 0 for p in procs):
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"run: not done after {timeout} seconds")
                time.sleep(0.05)
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
            for p in procs:
                p.join(5)
                if p.is_alive():
                    p.kill()
                    p.join()
        return [torch.load(Path(tmp) / f"rank{rank}.pt", weights_only=True) for rank in range(world_size)]


def _rank_entry(rank: int, world_size: int, kwargs: dict, results: str) -> None:
    """Run `_rank_main`, and leave a failing rank's error for the parent as `rank{rank}.err`."""
    try:
        _rank_main(rank, world_size, kwargs, results)
    except BaseException as err:
        try:
            data = pickle.dumps(err)
        except Exception:
            data = pickle.dumps(RuntimeError(f"rank {rank}: {err!r}"))
        with open(Path(results) / f"rank{rank}.err", "wb") as f:
            f.write(data)
        raise
