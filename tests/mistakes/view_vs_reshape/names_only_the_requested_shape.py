"""Refuses a shape that does not fit, but names only the requested shape, not `x.shape`, so the
reader cannot see why it does not fit.

Caught by: test_view_or_copy_rejects_a_shape_that_does_not_fit
"""

import reference.view_vs_reshape as _ref
from reference.view_vs_reshape import *


def view_or_copy(x, shape):
    try:
        return _ref.view_or_copy(x, shape)
    except ValueError:
        raise ValueError(f"view_or_copy: x does not fit the shape {tuple(shape)}") from None
