"""Converts with `np.array(t)` (numpy copies), which numpy 2 warns about: torch 2.13's
`Tensor.__array__` takes no `copy` argument, so numpy cannot be told to copy and says so with
a DeprecationWarning that a later numpy may turn into an error.

Caught by: test_to_numpy_with_copy_never_shares
"""

import reference.copy_semantics as _ref
from reference.copy_semantics import *


def to_numpy(x, *, copy=False):
    if not copy:
        return _ref.to_numpy(x)
    return np.array(_ref.to_numpy(x, copy=False) if x.dtype == torch.bfloat16 else x.detach().cpu())
