"""Lets reshape's RuntimeError escape from view_or_copy, so an impossible shape gives torch's
message instead of a ValueError naming both shapes.

Caught by: test_view_or_copy_rejects_a_shape_that_does_not_fit
"""

from reference.view_vs_reshape import *


def view_or_copy(x, shape):
    result = x.reshape(tuple(shape))
    return result, result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
