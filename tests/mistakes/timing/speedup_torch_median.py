"""Divides medians taken with `torch.median`, which for an even number of times returns the
lower of the two middle ones, not the mean of the two that the contract defines.

Caught by: test_speedup_interleaves_and_divides_the_medians
"""

import torch

from reference.timing import *
from reference.timing import _check, _time_one_call


def speedup(fn_a, fn_b, *, device, warmup=3, repeats=10):
    target = _check("speedup", (fn_a, fn_b), device, warmup, repeats)
    for _ in range(warmup):
        fn_a()
        fn_b()
    times_a, times_b = [], []
    for _ in range(repeats):
        times_a.append(_time_one_call(fn_a, target))
        times_b.append(_time_one_call(fn_b, target))
    median_a = torch.tensor(times_a, dtype=torch.float64).median().item()
    median_b = torch.tensor(times_b, dtype=torch.float64).median().item()
    for name, median in (("fn_a", median_a), ("fn_b", median_b)):
        if median == 0:
            raise ValueError(f"speedup: the median time of {name} is 0 s")
    return float(median_a / median_b)
