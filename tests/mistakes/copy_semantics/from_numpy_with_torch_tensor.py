"""Uses `torch.tensor(a)` when sharing was asked for. `torch.tensor` always copies, so the
tensor and the array go their separate ways.

Caught by: test_from_numpy_shares_memory_with_the_array
"""

import reference.copy_semantics as _ref
from reference.copy_semantics import *


def from_numpy(a, *, copy=False):
    if copy:
        return _ref.from_numpy(a, copy=True)
    return torch.tensor(a)
