"""Times with CUDA events but asks `start.elapsed_time(end)` right after `end.record()`, before
the GPU has reached the end event; torch refuses ("Both events must be completed before
calculating elapsed time").

Caught by: test_time_op_waits_for_the_gpu
"""

import torch

from reference.timing import *
from reference.timing import _check, _summary, _time_one_call


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    for _ in range(warmup):
        fn()
    if target.type != "cuda":
        return _summary([_time_one_call(fn, target) for _ in range(repeats)])
    samples = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        samples.append(start.elapsed_time(end) / 1000)
    return _summary(samples)
