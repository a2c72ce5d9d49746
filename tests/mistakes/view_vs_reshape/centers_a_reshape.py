"""Centres the rows of `x.reshape(N, -1)` in place and returns `x`, believing that a reshape
writes through to the tensor it was made from; but reshape copies whenever no view of that
shape exists (a transposed or channels_last `x`), and then the write never reaches `x`.

Caught by: test_center_rows_changes_x_itself
"""

import reference.view_vs_reshape as _ref
from reference.view_vs_reshape import *


def center_rows_(x):
    _ref._check_centrable(x)
    flat = x.reshape(x.shape[0], -1)
    flat -= flat.mean(1, keepdim=True)
    return x
