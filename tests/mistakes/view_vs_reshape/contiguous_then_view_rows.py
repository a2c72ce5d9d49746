"""Calls `x.contiguous().view(N, W)` in flatten_rows: it never raises, but it copies every
non-contiguous batch, even every other row `x[::2]`, which `view` handles for free.

Caught by: test_flatten_rows_views_when_it_can
"""

import math

from reference.view_vs_reshape import *


def flatten_rows(x):
    if x.dim() == 0:
        raise ValueError(f"flatten_rows: x has shape {tuple(x.shape)} (0-d)")
    return x.contiguous().view(x.shape[0], math.prod(x.shape[1:]))
