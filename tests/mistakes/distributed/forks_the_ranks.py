"""Starts the ranks with the "fork" start method: each rank is a copy of the caller's process.
On a CPU it trains, but a fork of a process that has initialised CUDA cannot use CUDA, and each
rank depends on whatever the parent happened to hold.

Caught by: test_run_starts_each_rank_in_a_fresh_interpreter
"""

import tempfile
from pathlib import Path

import reference.distributed as _ref
from reference.distributed import *


def run(world_size, *, timeout=300.0, **kwargs):
    import pickle

    pickle.dumps(kwargs["model_fn"])
    if timeout is None or isinstance(timeout, str) or timeout <= 0:
        raise TypeError(f"timeout: {timeout!r}")
    with tempfile.TemporaryDirectory() as tmp:
        kwargs = {**kwargs, "init_method": (Path(tmp) / "rendezvous").as_uri()}
        ranks = mp.start_processes(
            _ref._rank_main,
            args=(world_size, kwargs, tmp),
            nprocs=world_size,
            join=False,
            start_method="fork",
        )
        if not ranks.join(timeout):
            for process in ranks.processes:
                process.kill()
            raise TimeoutError("the ranks did not finish")
        while not ranks.join():
            pass
        return [torch.load(Path(tmp) / f"rank{r}.pt", weights_only=True) for r in range(world_size)]
