"""Compares byte ranges on meta too, where every storage's data_ptr() is 0: two unrelated meta
tensors "overlap", though a meta tensor has no memory at all.

Caught by: test_shares_memory_is_false_on_meta
"""

from reference.copy_semantics import *


def shares_memory(a, b):
    if a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    a0, b0 = sa.data_ptr(), sb.data_ptr()
    return a0 < b0 + sb.nbytes() and b0 < a0 + sa.nbytes()
