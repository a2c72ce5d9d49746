"""Spawns the ranks with `mp.spawn(..., join=True)`, which waits until every rank has ended,
however long that takes: a stuck rank keeps `run` waiting for ever, and `timeout` is never
used.

Caught by: test_run_stops_a_stuck_rank_at_its_timeout
"""

import tempfile
from pathlib import Path

import torch
import torch.multiprocessing as mp

import reference.distributed as _ref
from reference.distributed import *


def run(world_size, *, timeout=300.0, **kwargs):
    with tempfile.TemporaryDirectory(prefix="katas-ddp-") as tmp:
        kwargs = {**kwargs, "init_method": (Path(tmp) / "rendezvous").as_uri()}
        mp.spawn(_ref._rank_main, args=(world_size, kwargs, tmp), nprocs=world_size, join=True)
        return [
            torch.load(Path(tmp) / f"rank{rank}.pt", weights_only=True)
            for rank in range(world_size)
        ]
