"""Leaves the argument checks to `train_rank`, inside the ranks: `run(2, timeout=None)` spawns
both ranks before anything notices, then fails, and a bad `epochs` fails in every rank after the
interpreters have started (the ranks are orphaned when the parent gives up on them).

Caught by: test_run_checks_every_argument_before_starting_a_rank
"""

import tempfile
import time
from pathlib import Path

import reference.distributed as _ref
from reference.distributed import *


def run(world_size, *, timeout=300.0, **kwargs):
    with tempfile.TemporaryDirectory() as tmp:
        kwargs = {**kwargs, "init_method": (Path(tmp) / "rendezvous").as_uri()}
        ranks = mp.spawn(
            _ref._rank_main, args=(world_size, kwargs, tmp), nprocs=world_size, join=False
        )
        deadline = time.monotonic() + timeout
        while not ranks.join(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                for process in ranks.processes:
                    process.kill()
                    process.join()
                raise TimeoutError(f"run({world_size}): the ranks did not finish in {timeout} s")
        return [torch.load(Path(tmp) / f"rank{r}.pt", weights_only=True) for r in range(world_size)]
