"""Uses `x.view(N, -1)` in flatten_rows, which raises on a transposed, permuted or otherwise
non-contiguous batch whose rows cannot be viewed.

Caught by: test_flatten_rows_matches_reshape
"""

from reference.view_vs_reshape import *


def flatten_rows(x):
    return x.view(x.shape[0], -1)
