"""Seeds inside `torch.random.fork_rng()` (the caller's random state is left as it was), picks
the backend with `dist.get_default_backend_for_device`, and in `run` starts plain
`multiprocessing` spawn processes itself: each rank reports its error, or nothing, through a
queue, and the parent stops the others as soon as one fails.
"""

import multiprocessing
import pickle
import queue
import tempfile
import time
import traceback
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler


def _count(name, value, least):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}={value!r}: not an int")
    if value < least:
        raise ValueError(f"{name}={value!r}: at least {least}")


def _train(rank, world_size, device, model_fn, dataset, epochs, batch_size, lr, seed):
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        model = model_fn()
    model.to(device)
    wrapped = DistributedDataParallel(model, device_ids=[rank] if device.type == "cuda" else None)
    sampler = DistributedSampler(dataset, world_size, rank, shuffle=True, seed=seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for inputs, targets in DataLoader(dataset, batch_size=batch_size, sampler=sampler):
            optimizer.zero_grad(set_to_none=True)
            nn.MSELoss()(wrapped(inputs.to(device)), targets.to(device)).backward()
            optimizer.step()
    return {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    _count("world_size", world_size, 1)
    _count("epochs", epochs, 0)
    _count("batch_size", batch_size, 1)
    _count("rank", rank, 0)
    if rank >= world_size:
        raise ValueError(f"rank={rank}: only {world_size} rank(s)")
    on_gpu = torch.cuda.is_available() and torch.cuda.device_count() >= world_size
    device = torch.device(f"cuda:{rank}") if on_gpu else torch.device("cpu")
    if on_gpu:
        torch.cuda.set_device(device)
    dist.init_process_group(
        dist.get_default_backend_for_device(device),
        init_method=init_method,
        world_size=world_size,
        rank=rank,
    )
    try:
        return _train(rank, world_size, device, model_fn, dataset, epochs, batch_size, lr, seed)
    finally:
        dist.destroy_process_group()


def _rank(rank, world_size, kwargs, folder, errors):
    try:
        torch.save(train_rank(rank, world_size, **kwargs), f"{folder}/rank-{rank}.pt")
    except BaseException:
        errors.put((rank, traceback.format_exc()))
        raise SystemExit(1) from None


def run(world_size, *, timeout=300.0, **kwargs):
    _count("world_size", world_size, 1)
    if type(timeout) not in (int, float):
        raise TypeError(f"timeout={timeout!r}: a number of seconds")
    if timeout <= 0:
        raise ValueError(f"timeout={timeout!r}: must be positive")
    names = ("model_fn", "dataset", "epochs", "batch_size", "lr", "seed")
    if sorted(kwargs) != sorted(names):
        raise TypeError(f"expected the keyword arguments {names}, got {tuple(kwargs)}")
    _count("epochs", kwargs["epochs"], 0)
    _count("batch_size", kwargs["batch_size"], 1)
    if not callable(kwargs["model_fn"]):
        raise TypeError("model_fn must be callable")
    try:
        pickle.dumps(kwargs["model_fn"])
    except (pickle.PicklingError, AttributeError, TypeError) as err:
        raise TypeError(f"model_fn cannot reach the ranks: {err}") from None
    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as folder:
        kwargs = dict(kwargs, init_method=Path(folder, "meet").as_uri())
        errors = ctx.Queue()
        ranks = [
            ctx.Process(target=_rank, args=(r, world_size, kwargs, folder, errors))
            for r in range(world_size)
        ]
        for p in ranks:
            p.start()
        deadline = time.monotonic() + timeout
        try:
            while any(p.is_alive() for p in ranks):
                try:
                    rank, text = errors.get(timeout=0.1)
                except queue.Empty:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"the ranks ran past {timeout} s") from None
                    continue
                raise RuntimeError(f"rank {rank} failed:\n{text}")
            failed = [p.exitcode for p in ranks if p.exitcode]
            if failed:
                try:
                    rank, text = errors.get(timeout=1)
                except queue.Empty:
                    raise RuntimeError(f"a rank exited with code {failed[0]}") from None
                raise RuntimeError(f"rank {rank} failed:\n{text}")
        finally:
            for p in ranks:
                if p.is_alive():
                    p.kill()
                p.join()
        return [torch.load(f"{folder}/rank-{r}.pt", weights_only=True) for r in range(world_size)]
