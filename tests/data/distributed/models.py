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

IN_THE_TEST_PROCESS = False
"""Set to True by the test process (for the length of one `run`): a rank that is a fork of it
inherits True, a rank spawned as a fresh interpreter imports this module afresh, and reads
False. `RankTagged` keeps what its rank read in a buffer, `inherited`."""


def _no_op(*args) -> None:
    return None


TLS_STASH = [n for n in ("_stash_obj_in_tls", "_remove_obj_from_tls") if hasattr(torch._C, n)]


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
    the kata's page explains how a solution avoids it. Torch 2.11 stashes nothing around
    backward and has no `_remove_obj_from_tls`: only the functions this torch has are patched.
    """
    with contextlib.ExitStack() as stack:
        for name in TLS_STASH:
            stack.enter_context(mock.patch.object(torch._C, name, _no_op))
        yield


def linear(n_in: int, n_out: int) -> nn.Linear:
    """A float64 Linear: the comparisons with one-process training are then exact to ~1e-15."""
    return nn.Linear(n_in, n_out, dtype=torch.float64)


class RankTagged(nn.Module):
    """A float64 Linear with two buffers that each forward sets: `rank`, this process's rank,
    and `inherited`, 1 if this process is a fork of the test process (see IN_THE_TEST_PROCESS).

    DDP copies rank 0's buffers to every rank before each forward (`broadcast_buffers=True`);
    the forward then writes its own, so a returned state dict says which rank it came from.
    """

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.linear = linear(n_in, n_out)
        self.register_buffer("rank", torch.tensor(-1))
        self.register_buffer("inherited", torch.tensor(-1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.rank.fill_(dist.get_rank() if dist.is_initialized() else -1)
        self.inherited.fill_(int(IN_THE_TEST_PROCESS))
        return self.linear(x)


def rank_tagged(n_in: int, n_out: int) -> RankTagged:
    """A RankTagged model. In a spawned rank (called before any backward) it also switches off
    the TLS stash for the rest of that process, which ends with the rank (see `no_tls_stash`)."""
    if multiprocessing.parent_process() is not None:
        for name in TLS_STASH:
            setattr(torch._C, name, _no_op)
    return RankTagged(n_in, n_out)


def fails_on_rank_1(n_in: int, n_out: int) -> nn.Linear:
    """Rank 1 raises RuntimeError(FAILURE) instead of building; the others build a Linear,
    a few seconds later.

    The wait keeps the other ranks out of any collective while rank 1 fails: a rank blocked in
    one with rank 1 fails too as soon as rank 1 exits ("Connection reset by peer"), and when
    both have exited by the time the parent looks, torch.multiprocessing's join may report
    either error. A correct `run` stops them long before the wait ends."""
    import time

    if dist.get_rank() == 1:
        raise RuntimeError(FAILURE)
    time.sleep(3)
    return linear(n_in, n_out)


def sleeps_forever(n_in: int, n_out: int) -> nn.Linear:
    """Never returns: a rank stuck for good, which only run's timeout can stop."""
    import time

    while True:
        time.sleep(1)
