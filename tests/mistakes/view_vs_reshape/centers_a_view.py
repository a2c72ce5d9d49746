"""Centres the rows of `x.view(N, -1)` in place, knowing that a view writes through to `x`;
but a view of shape (N, W) does not exist for every layout (a transposed or channels_last
`x`), and then `view` raises.

Caught by: test_center_rows_changes_x_itself
"""

import reference.view_vs_reshape as _ref
from reference.view_vs_reshape import *


def center_rows_(x):
    _ref._check_centrable(x)
    flat = x.view(x.shape[0], -1)
    flat -= flat.mean(1, keepdim=True)
    return x
