"""Trusts `x.numpy(force=True)`, which detaches, moves to the CPU and resolves the conjugate
and negative bits, but still raises `TypeError: Got unsupported ScalarType BFloat16`.

Caught by: test_to_numpy_converts_bfloat16_exactly
"""

from reference.copy_semantics import *


def to_numpy(x, *, copy=False):
    array = x.numpy(force=True)
    return array.copy() if copy else array
