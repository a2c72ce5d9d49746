"""Leaves the except block before retrying, but never collects garbage: tensors that the
failed attempt left in a reference cycle stay allocated through the next attempt.

Caught by: test_largest_batch_frees_a_failed_attempt_before_the_next
"""

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
        torch.cuda.empty_cache()
        n = max(n // 2, min_size)
