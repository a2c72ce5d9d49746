"""Clones every tensor before moving it, so an input that was already right is copied for nothing
(and no longer shares memory with the caller's tensor).

Caught by: test_fix_inputs_casts_floats_and_keeps_integers
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def fix_inputs(model, *inputs):
    return _ref.fix_inputs(
        model, *(x.clone() if isinstance(x, torch.Tensor) else x for x in inputs)
    )
