"""Takes the first input's device as the reference instead of the model's: when that very input
is the one left behind, it reports the model and the other inputs as misplaced.

Caught by: test_find_mismatches_follows_the_model, test_find_then_fix_lets_the_model_run
"""

from reference.mismatch_errors import *


def find_mismatches(model, *inputs):
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    device = tensors[0].device if tensors else next(model.parameters()).device
    return [name for name, d in device_report(model, *inputs).items() if d != device]
