"""Times all the timed calls as one interval and reports the average as every sample: the
median, min and max all come out as the mean, and one slow call moves all three.

Caught by: test_time_op_times_each_call_on_its_own, test_time_op_statistics_match_the_clock
"""

import time

import torch

from reference.timing import *
from reference.timing import _check, _summary


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    if target.type == "cuda":
        torch.cuda.synchronize(target)
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    if target.type == "cuda":
        torch.cuda.synchronize(target)
    average = (time.perf_counter() - start) / repeats
    return _summary([average] * repeats)
