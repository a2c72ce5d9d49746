"""Takes "the last stride is 1" to mean contiguous, and returns sliced, expanded and
permuted tensors untouched.

Caught by: test_ensure_contiguous_copies_what_is_not_contiguous
"""

from reference.view_vs_reshape import *


def ensure_contiguous(x):
    return x if x.dim() == 0 or x.stride(-1) == 1 else x.contiguous()
