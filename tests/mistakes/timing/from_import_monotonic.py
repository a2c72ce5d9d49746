"""Reads `monotonic`, imported with `from time import monotonic`: a steady clock, but before
Python 3.13 it ticks only every 15.6 ms on Windows, too coarse for calls that take
microseconds. (The tests judge a clock by what it is, however it was imported.)

Caught by: test_time_op_statistics_match_the_clock, test_time_op_times_each_call_on_its_own
"""

from time import monotonic

import torch

from reference.timing import *
from reference.timing import _check, _summary


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        if target.type == "cuda":
            torch.cuda.synchronize(target)
        start = monotonic()
        fn()
        if target.type == "cuda":
            torch.cuda.synchronize(target)
        samples.append(monotonic() - start)
    return _summary(samples)
