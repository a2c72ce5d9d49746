"""Checks only that `num_workers` is not negative, so `num_workers=True` passes as one worker
and `1.0` or `"2"` reach the DataLoader, which fails later and far from the mistake.

Caught by: test_loader_kwargs_rejects_a_worker_count_that_is_not_an_int
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def loader_kwargs(device, *, num_workers=1):
    target = _ref._as_device(device, "loader_kwargs")
    if isinstance(num_workers, (int, float)) and num_workers < 0:
        raise ValueError(f"loader_kwargs: num_workers={num_workers} is negative")
    if not _ref._is_accelerator(target):
        return {}
    return {"num_workers": num_workers, "pin_memory": True}
