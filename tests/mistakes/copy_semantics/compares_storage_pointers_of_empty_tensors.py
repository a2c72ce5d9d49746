"""Compares storage pointers with `==` and nothing else. Empty storages made by torch often have
the null pointer (not always: `torch.from_numpy(np.empty(0))` has a real one), so two unrelated
tensors without elements are reported as sharing memory; an empty byte range overlaps nothing.

Caught by: test_shares_memory_is_false_for_separate_tensors
"""

from reference.copy_semantics import *


def shares_memory(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
