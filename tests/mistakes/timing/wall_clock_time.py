"""Reads `time.time()`, wall-clock time: it jumps when the system clock is adjusted and is
coarse on some systems. `time.perf_counter()` is the clock made for timing.

Caught by: test_time_op_times_each_call_on_its_own
"""

import time

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
        start = time.time()
        fn()
        if target.type == "cuda":
            torch.cuda.synchronize(target)
        samples.append(time.time() - start)
    return _summary(samples)
