"""Halves while the size is at least 1, whatever min_size says: it tries sizes below
min_size, and returns one of them.

Caught by: test_largest_batch_halves_until_a_size_fits
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
            if n == 1:
                raise
        gc.collect()
        torch.cuda.empty_cache()
        n //= 2
