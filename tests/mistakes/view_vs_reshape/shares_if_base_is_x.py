"""Answers `shares = result._base is x`, but `_base` points to the root tensor: a view of a
view (of a transposed or sliced `x`) has `x._base` as its base, not `x`.

Caught by: test_view_or_copy_tells_the_truth_about_sharing
"""

import reference.view_vs_reshape as _ref
from reference.view_vs_reshape import *


def view_or_copy(x, shape):
    result, _ = _ref.view_or_copy(x, shape)
    return result, result is x or result._base is x
