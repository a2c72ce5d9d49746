"""Synchronizes before reading the stop time but not before the start time, so the first sample
also holds the warm-up work still queued on the GPU when the clock started.

Caught by: test_time_op_waits_for_the_gpu
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
        start = time.perf_counter()
        fn()
        if target.type == "cuda":
            torch.cuda.synchronize(target)
        samples.append(time.perf_counter() - start)
    return _summary(samples)
