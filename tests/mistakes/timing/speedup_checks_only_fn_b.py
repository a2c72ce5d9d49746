"""Refuses a zero median for `fn_b` only: when `fn_a` is the one too fast to measure, it answers
0.0, "fn_b is infinitely slower", which measures the clock, not the functions.

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
    median_a, median_b = statistics.median(times_a), statistics.median(times_b)
    if median_b == 0:
        raise ValueError("speedup: fn_b's median is 0 s, below the clock's resolution")
    return float(median_a / median_b)
