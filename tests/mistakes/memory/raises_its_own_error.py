"""Raises a new out-of-memory error of its own when nothing fits: the caller loses torch's
message (how much was asked for, how much is free) and the traceback that says where.

Caught by: test_largest_batch_raises_when_min_size_does_not_fit
"""

import gc

import torch

from reference.memory import *


def largest_batch(step, batch_size, *, min_size=1):
    if batch_size < 1 or min_size < 1 or min_size > batch_size:
        raise ValueError("largest_batch: bad sizes")
    n = batch_size
    while True:
        fits = True
        try:
            step(n)
        except torch.OutOfMemoryError:
            fits = False
        if fits:
            return n
        if n == min_size:
            raise torch.OutOfMemoryError(f"largest_batch: not even {min_size} fits")
        gc.collect()
        torch.cuda.empty_cache()
        n = max(n // 2, min_size)
