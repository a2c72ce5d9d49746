"""Moves the inputs to the model's device but keeps their dtype, so float64 data still meets a
float32 model and the next error is a dtype mismatch.

Caught by: test_fix_inputs_casts_floats_and_keeps_integers, test_fix_inputs_keeps_labels_as_integers
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def fix_inputs(model, *inputs):
    device = _ref._model_device("fix_inputs", model)
    return tuple(x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs)
