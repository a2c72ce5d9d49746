"""Uses `x.clone()` to make a contiguous copy, but clone() keeps the strides of a transposed,
permuted or channels_last tensor, so the copy is no more contiguous than `x`.

Caught by: test_ensure_contiguous_copies_what_is_not_contiguous
"""

from reference.view_vs_reshape import *


def ensure_contiguous(x):
    return x if x.is_contiguous() else x.clone()
