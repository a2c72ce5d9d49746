"""Keeps the last out-of-memory error in a variable, to raise it if nothing fits: the error
holds its traceback, and the traceback the failed step's tensors, through the next attempt.

Caught by: test_largest_batch_frees_a_failed_attempt_before_the_next
"""

import gc

import torch

from reference.memory import *


def largest_batch(step, batch_size, *, min_size=1):
    if batch_size < 1 or min_size < 1 or min_size > batch_size:
        raise ValueError("largest_batch: bad sizes")
    n, last = batch_size, None
    while True:
        try:
            step(n)
            return n
        except torch.OutOfMemoryError as err:
            last = err
        if n == min_size:
            raise last
        gc.collect()
        torch.cuda.empty_cache()
        n = max(n // 2, min_size)
