"""Ignores `copy=True` and always calls `torch.from_numpy(a)`, so the "copy" changes whenever
the array does.

Caught by: test_from_numpy_with_copy_owns_its_memory
"""

from reference.copy_semantics import *


def from_numpy(a, *, copy=False):
    return torch.from_numpy(a)
