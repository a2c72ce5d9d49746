"""Collects garbage inside the except block and retries after it: the collection runs while
the error being handled still holds, through its traceback, the failed attempt's frames, so a
reference cycle in them survives it, and nothing collects again before the next attempt.

Caught by: test_largest_batch_frees_a_failed_attempt_before_the_next
"""

import gc

import torch

from reference.memory import *


def largest_batch(step, batch_size, *, min_size=1):
    if batch_size < 1 or min_size < 1 or min_size > batch_size:
        raise ValueError("largest_batch: bad sizes")
    n = batch_size
    while True:
        try:
            step(n)
            return n
        except torch.OutOfMemoryError:
            if n == min_size:
                raise
            gc.collect()
            torch.cuda.empty_cache()
        n = max(n // 2, min_size)
