"""Times with CUDA events recorded with no stream, so they go on the current GPU's stream: when
the timed device is another GPU, the events pass straight through an idle queue and time
nothing of the work.

Caught by: test_time_op_waits_for_the_gpu_it_times
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
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1000)
    return _summary(samples)
