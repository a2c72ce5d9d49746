"""Takes the median with `torch.median`, which for an even number of times returns the lower of
the two middle ones, not the mean of the two that the contract defines.

Caught by: test_time_op_statistics_match_the_clock
"""

import torch

from reference.timing import *
from reference.timing import _check, _time_one_call


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    samples = torch.tensor(
        [_time_one_call(fn, target) for _ in range(repeats)], dtype=torch.float64
    )
    return {
        "median_s": samples.median().item(),
        "min_s": samples.min().item(),
        "max_s": samples.max().item(),
        "repeats": repeats,
    }
