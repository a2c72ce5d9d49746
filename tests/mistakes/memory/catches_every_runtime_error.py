"""Catches RuntimeError, the base class of torch.OutOfMemoryError: any other failure (a
shape mismatch, an illegal memory access) is retried at smaller sizes and hidden.

Caught by: test_largest_batch_lets_any_other_error_through
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
        except RuntimeError:
            if n == min_size:
                raise
        gc.collect()
        torch.cuda.empty_cache()
        n = max(n // 2, min_size)
