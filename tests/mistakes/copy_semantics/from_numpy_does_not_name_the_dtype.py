"""Refuses an array of strings or objects with a TypeError that does not say which dtype, so
the reader cannot tell what to convert it to.

Caught by: test_from_numpy_refuses_what_it_cannot_convert
"""

import reference.copy_semantics as _ref
from reference.copy_semantics import *


def from_numpy(a, *, copy=False):
    if isinstance(a, np.ndarray) and a.dtype.kind in "OUSMmV":
        raise TypeError("from_numpy: torch cannot hold this array")
    return _ref.from_numpy(a, copy=copy)
