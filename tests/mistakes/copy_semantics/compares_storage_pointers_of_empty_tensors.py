"""Compares storage pointers with `==` and nothing else. An empty storage has the null pointer,
so any two tensors without elements are reported as sharing memory.

Caught by: test_shares_memory_is_false_for_separate_tensors
"""

from reference.copy_semantics import *


def shares_memory(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
