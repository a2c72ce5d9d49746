"""Compares `a.data_ptr() == b.data_ptr()`, where each tensor starts, not its storage: a slice
such as `x[2:]` starts elsewhere in the same storage and is reported as not sharing.

Caught by: test_shares_memory_sees_slices_that_start_elsewhere
"""

from reference.copy_semantics import *


def shares_memory(a, b):
    return a.data_ptr() == b.data_ptr()
