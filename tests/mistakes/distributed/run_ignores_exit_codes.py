"""Starts the ranks with plain `multiprocessing` processes and joins them one by one without
looking at their exit codes: when a rank fails, its error only reaches its own stderr, and the
caller gets a missing-file error about the results instead.

Caught by: test_run_raises_the_error_of_a_failing_rank
"""

import multiprocessing
import tempfile
from pathlib import Path

import reference.distributed as _ref
from reference.distributed import *


def run(world_size, *, timeout=300.0, **kwargs):
    with tempfile.TemporaryDirectory() as tmp:
        kwargs = {**kwargs, "init_method": (Path(tmp) / "rendezvous").as_uri()}
        spawn = multiprocessing.get_context("spawn")
        ranks = [
            spawn.Process(target=_ref._rank_main, args=(rank, world_size, kwargs, tmp))
            for rank in range(world_size)
        ]
        for process in ranks:
            process.start()
        for process in ranks:
            process.join(timeout)
        return [torch.load(Path(tmp) / f"rank{r}.pt", weights_only=True) for r in range(world_size)]
