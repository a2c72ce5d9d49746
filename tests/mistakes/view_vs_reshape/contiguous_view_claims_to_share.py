"""Builds view_or_copy from `x.contiguous().view(shape)` and returns a hard-coded True, though
`contiguous()` copies every non-contiguous `x`, so the result often shares nothing with it.

Caught by: test_view_or_copy_tells_the_truth_about_sharing
"""

from reference.view_vs_reshape import *


def view_or_copy(x, shape):
    try:
        return x.contiguous().view(tuple(shape)), True
    except RuntimeError as err:
        raise ValueError(f"cannot view x of shape {tuple(x.shape)} as {tuple(shape)}") from err
