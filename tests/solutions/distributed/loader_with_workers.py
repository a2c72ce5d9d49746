"""Reads with a DataLoader that uses two worker processes, trains inline in `train_rank` and
lets go of the DDP wrapper with `del` before the group is destroyed; `run` starts the ranks with
`torch.multiprocessing.start_processes(..., start_method="spawn")`.
"""

from __future__ import annotations

import numbers
import pickle
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


def _positive_int(name, value, least):
    if type(value) is not int:
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be >= {least}, got {value}")


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    _positive_int("world_size", world_size, 1)
    _positive_int("epochs", epochs, 0)
    _positive_int("batch_size", batch_size, 1)
    if type(rank) is not int or not 0 <= rank < world_size:
        raise ValueError(f"rank {rank!r} is not in range({world_size})")
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    device = torch.device("cuda", rank) if gpus >= world_size else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(
        "nccl" if device.type == "cuda" else "gloo",
        init_method=init_method,
        rank=rank,
        world_size=world_size,
    )
    try:
        torch.manual_seed(seed)
        model = model_fn().to(device)
        ddp = DDP(model, device_ids=[rank] if device.type == "cuda" else None)
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, seed=seed)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=2)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=lr)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(ddp(x.to(device)), y.to(device))
                loss.backward()
                optimizer.step()
        del ddp, optimizer, loss  # nothing may hold the wrapper when the group goes
        return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
    finally:
        dist.destroy_process_group()


def _one_rank(rank, world_size, kwargs, out):
    torch.save(train_rank(rank, world_size, **kwargs), Path(out) / f"{rank}.pt")


def run(world_size, *, timeout=300.0, **kwargs):
    _positive_int("world_size", world_size, 1)
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise TypeError(f"timeout must be a number of seconds, got {timeout!r}")
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    expected = {"model_fn", "dataset", "epochs", "batch_size", "lr", "seed"}
    if set(kwargs) != expected:
        raise TypeError(f"run needs exactly {sorted(expected)}, got {sorted(kwargs)}")
    _positive_int("epochs", kwargs["epochs"], 0)
    _positive_int("batch_size", kwargs["batch_size"], 1)
    try:
        pickle.dumps(kwargs["model_fn"])
    except Exception as err:
        raise TypeError(f"model_fn cannot be pickled for the ranks: {err}") from None
    with tempfile.TemporaryDirectory() as out:
        kwargs["init_method"] = Path(out, "store").as_uri()
        context = mp.start_processes(
            _one_rank,
            args=(world_size, kwargs, out),
            nprocs=world_size,
            join=False,
            start_method="spawn",
        )
        end = time.monotonic() + timeout
        while not context.join(timeout=max(0.0, end - time.monotonic())):
            if time.monotonic() >= end:
                for p in context.processes:
                    if p.is_alive():
                        p.kill()
                    p.join()
                raise TimeoutError(f"ranks still running after {timeout} s")
        return [torch.load(Path(out, f"{r}.pt"), weights_only=True) for r in range(world_size)]
