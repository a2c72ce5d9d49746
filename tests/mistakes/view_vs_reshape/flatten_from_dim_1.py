"""Writes flatten_rows as `x.flatten(1)`: it views when it can and handles an empty batch, but a
1-d batch (N,) has no dimension 1 to start from, so torch raises IndexError ("Dimension out of
range") instead of returning (N, 1).

Caught by: test_flatten_rows_matches_reshape
"""

from reference.view_vs_reshape import *


def flatten_rows(x):
    if x.dim() == 0:
        raise ValueError(f"flatten_rows: x has shape {tuple(x.shape)} (0-d)")
    return x.flatten(1)
