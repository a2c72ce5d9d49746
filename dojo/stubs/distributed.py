"""Distributed: real multi-process training with DistributedDataParallel (DDP).

One process per rank: each joins a process group, trains the same model on its own shard of the
data, and DDP averages the gradients of all ranks during `backward()`. The `gloo` backend runs
on CPUs, so this is real distributed training on any laptop; on a GPU host `nccl` does the same
with one GPU per rank. (Old tutorials use `nn.parallel.DistributedDataParallelCPU`: today a
deprecated alias of DDP.) Read docs/katas/distributed.md, then fill in each function.

Check it:  python -m katas check distributed
Stuck?     python -m katas hint distributed
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.distributed as dist  # noqa: F401  (you will need it)
import torch.multiprocessing as mp  # noqa: F401
from torch import nn
from torch.nn.parallel import DistributedDataParallel  # noqa: F401
from torch.utils.data import DataLoader, Dataset, DistributedSampler  # noqa: F401


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
    """Train as rank `rank` of `world_size` processes; return the final state dict.

    1. The device: `cuda:{rank}` when CUDA has at least `world_size` GPUs (one per rank; call
       `torch.cuda.set_device` with it), otherwise the CPU. The backend follows the device:
       `nccl` for CUDA, `gloo` for the CPU (`dist.get_default_backend_for_device` knows).
    2. Join the group: `dist.init_process_group(backend, init_method=init_method, rank=rank,
       world_size=world_size)`. From here on, whatever happens, `dist.destroy_process_group()`
       must run before you return or raise.
    3. `torch.manual_seed(seed)` on every rank, then `model_fn()`: every rank builds the same
       model. Move it to the device, and only then wrap it: `DistributedDataParallel(model,
       device_ids=[rank])` on CUDA, `DistributedDataParallel(model)` on the CPU.
    4. Shard the data: `DistributedSampler(dataset, num_replicas=world_size, rank=rank,
       shuffle=True, seed=seed)` and `DataLoader(dataset, batch_size=batch_size,
       sampler=sampler)`. Read the dataset only through that loader.
    5. For each of `epochs` epochs: `sampler.set_epoch(epoch)`, then for each `(inputs,
       targets)` batch, moved to the device: zero the gradients, `nn.MSELoss()` (the mean) of
       the DDP model's output, `backward()`, and a `torch.optim.SGD(lr=lr)` step. DDP averages
       the gradients of all ranks inside `backward()`: do not average them again.
    6. Return the model's `state_dict()` with every tensor on the CPU, under the model's own
       names: no `module.` prefix (that is the DDP wrapper's).

    Do steps 3 to 6 in a helper function, and destroy the group after it has returned: when
    the DDP wrapper outlives the group, torch 2.13 can deadlock on the way out (the page
    explains why). A rank outside [0, world_size), or a world_size, epochs or batch_size that
    is not a positive int (epochs may be 0), raises ValueError before joining anything.
    """
    # TODO(distributed): join the group, seed, build, move, wrap, shard, train, always destroy.
    raise NotImplementedError("distributed: train_rank")


def run(world_size: int, *, timeout: float = 300.0, **kwargs) -> list[dict[str, torch.Tensor]]:
    """Train on `world_size` processes; return each rank's state dict, in rank order.

    `kwargs` are `train_rank`'s keyword arguments except `init_method`, which `run` makes: a
    file store in a fresh temporary directory (`tempfile.TemporaryDirectory()`, then
    `(Path(tmp) / "rendezvous").as_uri()` gives `file:///...`) needs no free port. Passing
    `init_method` yourself is a TypeError.

    Start the ranks with `torch.multiprocessing.spawn(fn, args=..., nprocs=world_size,
    join=False)`: it calls `fn(rank, *args)` in fresh processes, so `fn` must be a function
    defined at the top of this module, and everything in `args` must be picklable. Each rank
    cannot return to you: let it `torch.save` its state dict into the temporary directory, and
    load them (`weights_only=True`) once every rank is done.

    The context `spawn` returns watches all ranks: its `join(timeout)` returns True when all
    have finished, and raises the error of a rank that failed (after stopping the others).
    Never wait forever: after `timeout` seconds, kill the ranks and raise TimeoutError.
    """
    # TODO(distributed): spawn the ranks on a file store, join with a deadline, load in order.
    raise NotImplementedError("distributed: run")
