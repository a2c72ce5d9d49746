"""Reads the clock around each call without synchronizing, so on a GPU each sample is the time
to queue the kernels, not to run them.

Caught by: test_time_op_waits_for_the_gpu
"""

import time

from reference.timing import *
from reference.timing import _check, _summary


def time_op(fn, *, device, warmup=3, repeats=10):
    _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return _summary(samples)
