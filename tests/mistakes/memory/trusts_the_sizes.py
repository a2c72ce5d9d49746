"""Never checks the sizes: batch_size=0 is tried as it is, and min_size larger than
batch_size is only noticed, if ever, after step has run.

Caught by: test_largest_batch_refuses_bad_sizes_before_calling_step
"""

import gc

import torch

from reference.memory import *


def largest_batch(step, batch_size, *, min_size=1):
    n = batch_size
    while True:
        try:
            step(n)
            return n
        except torch.OutOfMemoryError:
            if n <= min_size:
                raise
        gc.collect()
        torch.cuda.empty_cache()
        n = max(n // 2, min_size)
