"""Reads the devices from `model.state_dict()`, which leaves out non-persistent buffers: a buffer
registered with `persistent=False` moves with the model and takes part in its forward pass, but
never appears in the report.

Caught by: test_device_report_lists_everything, test_find_mismatches_names_the_strays
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def device_report(model, *inputs):
    _ref._check_model("device_report", model)
    report = {name: t.device for name, t in model.state_dict().items()}
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            report[f"input[{i}]"] = x.device
    return report


def find_mismatches(model, *inputs):
    device = _ref._model_device("find_mismatches", model)
    return [name for name, d in device_report(model, *inputs).items() if d != device]
