"""Divides the medians without looking at them: when `fn_b` ran faster than the clock can tell
(a median of 0 s, which CUDA events' half-microsecond resolution makes possible), it raises
ZeroDivisionError instead of a ValueError that names `fn_b`.

Caught by: test_speedup_refuses_a_zero_median
"""

import statistics

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
    return float(statistics.median(times_a) / statistics.median(times_b))
