"""Checks no argument: `repeats=0` ends in `statistics.median([])` (StatisticsError), and a
device torch cannot parse escapes as torch's RuntimeError, naming nothing of the call.

Caught by: test_bad_arguments_raise_value_error_naming_them
"""

import torch

from reference.timing import *
from reference.timing import _summary, _time_one_call


def time_op(fn, *, device, warmup=3, repeats=10):
    target = torch.device(device)
    for _ in range(warmup):
        fn()
    return _summary([_time_one_call(fn, target) for _ in range(repeats)])
