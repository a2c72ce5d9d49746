"""Calls `x.clone().reshape(...)` to be safe, so every result is a copy, even when a free view
was possible; writes to it never reach `x`.

Caught by: test_flatten_rows_views_when_it_can, test_view_or_copy_views_when_it_can
"""

import math

from reference.view_vs_reshape import *


def flatten_rows(x):
    if x.dim() == 0:
        raise ValueError(f"flatten_rows: x has shape {tuple(x.shape)} (0-d)")
    return x.clone().reshape(x.shape[0], math.prod(x.shape[1:]))


def view_or_copy(x, shape):
    try:
        result = x.clone().reshape(tuple(shape))
    except RuntimeError as err:
        raise ValueError(f"cannot reshape x of shape {tuple(x.shape)} into {tuple(shape)}") from err
    return result, result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
