"""Reports the mean as `median_s`, so one slow call (another process, a page fault) drags the
answer up.

Caught by: test_time_op_statistics_match_the_clock
"""

import statistics

from reference.timing import *
from reference.timing import _check, _time_one_call


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    samples = [_time_one_call(fn, target) for _ in range(repeats)]
    return {
        "median_s": statistics.fmean(samples),
        "min_s": min(samples),
        "max_s": max(samples),
        "repeats": repeats,
    }
