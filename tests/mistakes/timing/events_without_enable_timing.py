"""Times with `torch.cuda.Event()` made without `enable_timing=True`; torch 2.13 then refuses
`elapsed_time` with ValueError ("Both events must be created with argument
'enable_timing=True'.").

Caught by: test_time_op_waits_for_the_gpu, test_time_op_warms_up_before_timing
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
    stream = torch.cuda.current_stream(target)
    for _ in range(repeats):
        start, end = torch.cuda.Event(), torch.cuda.Event()
        start.record(stream)
        fn()
        end.record(stream)
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1000)
    return _summary(samples)
