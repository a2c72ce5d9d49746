"""Leaves every check to `torch.from_numpy`, which shares a read-only array behind a one-time
warning: the tensor can then write to memory that numpy promised nobody would change.

Caught by: test_from_numpy_refuses_to_share_what_torch_cannot
"""

import reference.copy_semantics as _ref
from reference.copy_semantics import *


def from_numpy(a, *, copy=False):
    if copy:
        return _ref.from_numpy(a, copy=True)
    return torch.from_numpy(a)
