"""Model factories for the distributed kata's tests and page.

`run` sends its `model_fn` to freshly spawned processes, so it must be picklable: a function
defined at the top of an importable module (or a `functools.partial` of one), never a lambda
or a function defined inside a test. A spawned process imports this module by name:
`multiprocessing` hands it the parent's `sys.path`, which holds the repository root.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Iterator
from unittest import mock

import torch
import torch.distributed as dist
from torch import nn

FAILURE = "rank 1 cannot build its model (on purpose)"


def _no_op(*args) -> None:
    return None


@contextlib.contextmanager
def no_tls_stash() -> Iterator[None]:
    """Make `torch._C._stash_obj_in_tls` a no-op inside the block.

    Torch 2.13 stashes a Python object (the contextvars context) in thread-local state around
    every backward (`_engine_run_backward`, torch/autograd/graph.py). Each gloo all-reduce DDP
    starts during backward copies that state, so the gloo thread that destroys the finished
    work must take the GIL. If the process group is destroyed at that moment by code that holds
    the GIL (freeing the DDP wrapper's reducer when it held the group's last reference does),
    the group waits for that thread and the thread waits for the GIL: a deadlock, seen here
    once in a few hundred runs. The stash only matters to torch.compile; without it the
    thread needs no GIL. The tests switch it off so a learner's code is judged, not the race;
    the kata's page explains how a solution avoids it.
    """
    with (
        mock.patch.object(torch._C, "_stash_obj_in_tls", _no_op),
        mock.patch.object(torch._C, "_remove_obj_from_tls", _no_op),
    ):
        yield


def linear(n_in: int, n_out: int) -> nn.Linear:
    """A float64 Linear: the comparisons with one-process training are then exact to ~1e-15."""
    return nn.Linear(n_in, n_out, dtype=torch.float64)


class RankTagged(nn.Module):
    """A float64 Linear with a buffer, `rank`, that each forward sets to this process's rank.

    DDP copies rank 0's buffers to every rank before each forward (`broadcast_buffers=True`);
    the forward then writes its own rank, so a returned state dict says which rank it came from.
    """

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.linear = linear(n_in, n_out)
        self.register_buffer("rank", torch.tensor(-1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.rank.fill_(dist.get_rank() if dist.is_initialized() else -1)
        return self.linear(x)


def rank_tagged(n_in: int, n_out: int) -> RankTagged:
    """A RankTagged model. In a spawned rank (called before any backward) it also switches off
    the TLS stash for the rest of that process, which ends with the rank (see `no_tls_stash`)."""
    if multiprocessing.parent_process() is not None:
        torch._C._stash_obj_in_tls = _no_op
        torch._C._remove_obj_from_tls = _no_op
    return RankTagged(n_in, n_out)


def fails_on_rank_1(n_in: int, n_out: int) -> nn.Linear:
    """Rank 1 raises RuntimeError(FAILURE) instead of building; the others build a Linear."""
    if dist.get_rank() == 1:
        raise RuntimeError(FAILURE)
    return linear(n_in, n_out)


def sleeps_forever(n_in: int, n_out: int) -> nn.Linear:
    """Never returns: a rank stuck for good, which only run's timeout can stop."""
    import time

    while True:
        time.sleep(1)
