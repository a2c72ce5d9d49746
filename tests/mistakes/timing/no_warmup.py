"""Times from the very first call, with no warm-up, so the samples include the one-off start-up
costs (CUDA context, cuBLAS handles, caches) that the warm-up is there to leave out.

Caught by: test_time_op_warms_up_before_timing, test_time_op_statistics_match_the_clock
"""

from reference.timing import *
from reference.timing import _check, _summary, _time_one_call


def time_op(fn, *, device, warmup=3, repeats=10):
    target = _check("time_op", (fn,), device, warmup, repeats)
    return _summary([_time_one_call(fn, target) for _ in range(repeats)])
