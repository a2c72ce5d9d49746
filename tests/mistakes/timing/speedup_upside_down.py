"""Returns median(b) / median(a), the inverse of the documented ratio: a `fn_b` twice as fast
reads as 0.5.

Caught by: test_speedup_interleaves_and_divides_the_medians, test_speedup_on_real_work
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
    return statistics.median(times_b) / statistics.median(times_a)
