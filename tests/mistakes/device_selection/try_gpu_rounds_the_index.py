"""Converts the index with int(), so try_gpu("0") and try_gpu(1.5) quietly give a device
instead of a TypeError.

Caught by: test_try_gpu_refuses_an_index_that_is_not_an_int
"""

import reference.device_selection as _ref
from reference.device_selection import *


def try_gpu(i=0):
    return _ref.try_gpu(int(i) if i is not None else 0)
