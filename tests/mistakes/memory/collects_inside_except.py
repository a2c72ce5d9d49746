"""Collects garbage and empties the cache before retrying, but does both, and the retry, inside
the except block: the collection runs while the error being handled still holds, through its
traceback, the failed attempt's frames and every tensor in them, so it cannot free them.

Caught by: test_largest_batch_frees_a_failed_attempt_before_the_next
"""

import gc

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
        gc.collect()
        torch.cuda.empty_cache()
        return largest_batch(step, max(batch_size // 2, min_size), min_size=min_size)
