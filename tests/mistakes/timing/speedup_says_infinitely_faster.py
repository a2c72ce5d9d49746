"""Answers `inf` when `fn_b`'s median is 0 s (and 0.0 when `fn_a`'s is): a ratio with a zero in
it measures the clock's resolution, not the functions, and the contract asks for a ValueError.

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
    return float("inf") if median_b == 0 else median_a / median_b
