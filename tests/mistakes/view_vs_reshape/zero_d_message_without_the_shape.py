"""Refuses a 0-d tensor, but the message does not say its shape is (), so the reader cannot
tell what was wrong with the input.

Caught by: test_flatten_rows_rejects_a_0d_tensor
"""

import reference.view_vs_reshape as _ref
from reference.view_vs_reshape import *


def flatten_rows(x):
    if x.dim() == 0:
        raise ValueError("flatten_rows: x must have rows")
    return _ref.flatten_rows(x)
