"""Joins the process group first and checks its arguments afterwards (destroying the group on
the way out): a rank with a bad batch size has already joined, and the other ranks wait for it
at their first collective until the group's timeout.

Caught by: test_train_rank_refuses_bad_counts_before_joining
"""

import reference.distributed as _ref
from reference.distributed import *


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    device = torch.device("cpu")
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world_size)
    try:
        _ref._check_counts(
            world_size=(world_size, 1), epochs=(epochs, 0), batch_size=(batch_size, 1)
        )
        if not 0 <= rank < world_size:
            raise ValueError(f"rank must be in [0, {world_size}), not {rank}")
        return _ref._fit(rank, world_size, device, model_fn, dataset, epochs, batch_size, lr, seed)
    finally:
        dist.destroy_process_group()
