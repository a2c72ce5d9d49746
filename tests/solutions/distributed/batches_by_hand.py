"""No DataLoader: batches the sampler's indices by hand and stacks the samples with
`torch.stack`; checks `run`'s keyword arguments by binding them to `train_rank`'s signature
(`inspect.Signature.bind`); seeds with `torch.random.manual_seed`.
"""

import inspect
import math
import pickle
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DistributedSampler


def _int_at_least(value, least, name):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} should be an int, not {type(value).__name__}")
    if value < least:
        raise ValueError(f"{name} should be at least {least}, not {value}")


def _fit(ddp, device, dataset, sampler, epochs, batch_size, lr):
    optimizer = torch.optim.SGD(ddp.parameters(), lr=lr)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        order = list(sampler)
        for start in range(0, len(order), batch_size):
            samples = [dataset[i] for i in order[start : start + batch_size]]
            x = torch.stack([s[0] for s in samples]).to(device)
            y = torch.stack([s[1] for s in samples]).to(device)
            optimizer.zero_grad()
            nn.functional.mse_loss(ddp(x), y).backward()
            optimizer.step()


def _state(model_fn, rank, world_size, device, dataset, epochs, batch_size, lr, seed):
    torch.random.manual_seed(seed)
    model = model_fn()
    model = model.to(device)
    ddp = DistributedDataParallel(model, device_ids=[rank] if device.type == "cuda" else None)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, seed=seed)
    _fit(ddp, device, dataset, sampler, epochs, batch_size, lr)
    return {name: value.cpu().clone() for name, value in model.state_dict().items()}


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    _int_at_least(world_size, 1, "world_size")
    _int_at_least(rank, 0, "rank")
    if rank >= world_size:
        raise ValueError(f"rank {rank} does not exist in a world of {world_size}")
    _int_at_least(epochs, 0, "epochs")
    _int_at_least(batch_size, 1, "batch_size")
    if torch.cuda.is_available() and torch.cuda.device_count() >= world_size:
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
    try:
        return _state(model_fn, rank, world_size, device, dataset, epochs, batch_size, lr, seed)
    finally:
        dist.destroy_process_group()


def _main(rank, world_size, kwargs, where):
    torch.save(train_rank(rank, world_size, **kwargs), Path(where) / f"state{rank}")


def run(world_size, *, timeout=300.0, **kwargs):
    _int_at_least(world_size, 1, "world_size")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout should be seconds, not {timeout!r}")
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"timeout should be a positive number of seconds, not {timeout}")
    inspect.signature(train_rank).bind(0, world_size, init_method="", **kwargs)
    _int_at_least(kwargs["epochs"], 0, "epochs")
    _int_at_least(kwargs["batch_size"], 1, "batch_size")
    try:
        pickle.dumps(kwargs["model_fn"])
    except Exception as err:
        raise TypeError(f"model_fn must be picklable to reach the ranks: {err}") from None
    with tempfile.TemporaryDirectory() as where:
        kwargs = {**kwargs, "init_method": Path(where, "rendezvous").as_uri()}
        context = mp.spawn(_main, args=(world_size, kwargs, where), nprocs=world_size, join=False)
        started = time.monotonic()
        while True:
            left = timeout - (time.monotonic() - started)
            if left <= 0:
                for process in context.processes:
                    process.kill()
                for process in context.processes:
                    process.join()
                raise TimeoutError(f"{world_size} rank(s) still running after {timeout} s")
            if context.join(timeout=min(left, 1.0)):
                break
        return [torch.load(Path(where) / f"state{r}", weights_only=True) for r in range(world_size)]
