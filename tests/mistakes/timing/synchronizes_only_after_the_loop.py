"""Synchronizes once, after the timing loop: the GPU work is finished by the end, but every
sample was read before it was, so each one measured only a launch.

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
        samples.append(time.perf_counter() - start)
    if target.type == "cuda":
        torch.cuda.synchronize(target)
    return _summary(samples)
