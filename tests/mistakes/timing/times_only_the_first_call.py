"""Times only the first call after the warm-up and reports that one sample as the median, the
minimum and the maximum; the other calls run untimed.

Caught by: test_time_op_statistics_match_the_clock
"""

from reference.timing import *
from reference.timing import _check, _summary, _time_one_call


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    first = _time_one_call(fn, target)
    for _ in range(repeats - 1):
        fn()
    return {**_summary([first]), "repeats": repeats}
