"""Never checks that `model` is a module, so `device_report("model", x)` fails deep inside with an
AttributeError about `named_parameters` instead of a TypeError that says what was wrong.

Caught by: test_a_model_that_is_not_a_module_is_a_type_error
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def device_report(model, *inputs):
    report = {name: p.device for name, p in model.named_parameters()}
    report.update({name: b.device for name, b in model.named_buffers()})
    report.update({f"input[{i}]": x.device for i, x in enumerate(inputs) if torch.is_tensor(x)})
    return report


def find_mismatches(model, *inputs):
    device = _ref._model_device("find_mismatches", model)
    return [name for name, d in device_report(model, *inputs).items() if d != device]


def fix_inputs(model, *inputs):
    device = _ref._model_device("fix_inputs", model)
    dtype = _ref._model_float_dtype("fix_inputs", model)
    return tuple(
        (x.to(device, dtype) if x.is_floating_point() and dtype else x.to(device))
        if isinstance(x, torch.Tensor)
        else x
        for x in inputs
    )
