"""Halves down to min_size and then keeps trying min_size for ever: a step that never fits
never ends.

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
        try:
            step(n)
            return n
        except torch.OutOfMemoryError:
            pass
        gc.collect()
        torch.cuda.empty_cache()
        n = max(n // 2, min_size)
