"""Casts every tensor to the model's dtype, labels included: int64 class labels become floats, and
`cross_entropy` then reads them as probabilities or refuses them.

Caught by: test_fix_inputs_keeps_labels_as_integers, test_fix_inputs_casts_floats_and_keeps_integers
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def fix_inputs(model, *inputs):
    device = _ref._model_device("fix_inputs", model)
    dtype = next(model.parameters()).dtype
    return tuple(x.to(device, dtype) if isinstance(x, torch.Tensor) else x for x in inputs)
