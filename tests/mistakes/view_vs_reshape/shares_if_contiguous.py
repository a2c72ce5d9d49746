"""Answers `shares = x.is_contiguous()`, believing that reshape copies every non-contiguous
tensor; but reshape asks the strides, and many non-contiguous tensors can be viewed.

Caught by: test_view_or_copy_tells_the_truth_about_sharing
"""

import reference.view_vs_reshape as _ref
from reference.view_vs_reshape import *


def view_or_copy(x, shape):
    result, _ = _ref.view_or_copy(x, shape)
    return result, x.is_contiguous()
