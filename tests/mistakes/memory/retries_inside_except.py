"""Tries the smaller size from inside the except block: while the handler runs, the error's
traceback holds the failed step's frames, and with them every tensor it allocated.

Caught by: test_largest_batch_frees_a_failed_attempt_before_the_next
"""

import torch

from reference.memory import *


def largest_batch(step, batch_size, *, min_size=1):
    if batch_size < 1 or min_size < 1 or min_size > batch_size:
        raise ValueError("largest_batch: bad sizes")
    try:
        step(batch_size)
        return batch_size
    except torch.OutOfMemoryError:
        if batch_size == min_size:
            raise
        torch.cuda.empty_cache()
        return largest_batch(step, max(batch_size // 2, min_size), min_size=min_size)
