"""Waits by reading a value back from a fresh tensor on `"cuda"`, which is the *current* GPU:
the read waits for that GPU's queue only, so when the timed device is another GPU (`cuda:1`
while `cuda:0` is current) the clock is read while the work is still queued there.

Caught by: test_time_op_waits_for_the_gpu_it_times
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
            torch.zeros(1, device="cuda").item()
        start = time.perf_counter()
        fn()
        if target.type == "cuda":
            torch.zeros(1, device="cuda").item()
        samples.append(time.perf_counter() - start)
    return _summary(samples)
