"""Checks the parameters and the inputs but not the buffers, so a BatchNorm whose running_mean
stayed on the CPU goes unreported.

Caught by: test_find_mismatches_counts_buffers, test_find_mismatches_names_the_strays
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def find_mismatches(model, *inputs):
    device = _ref._model_device("find_mismatches", model)
    report = {name: p.device for name, p in model.named_parameters()}
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            report[f"input[{i}]"] = x.device
    return [name for name, d in report.items() if d != device]
