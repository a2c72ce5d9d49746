"""Clones before calling `contiguous()`, so a tensor that is already contiguous is copied
instead of returned as it is.

Caught by: test_ensure_contiguous_returns_x_itself_when_contiguous
"""

from reference.view_vs_reshape import *


def ensure_contiguous(x):
    return x.clone().contiguous()
