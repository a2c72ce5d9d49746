"""Numbers the tensor inputs among themselves, so in `device_report(model, x, None, y)` the tensor
`y` is reported as input[1] instead of input[2], and the name no longer says which argument it is.

Caught by: test_device_report_counts_non_tensor_inputs, test_device_report_lists_everything
"""

from reference.mismatch_errors import *


def device_report(model, *inputs):
    report = {name: p.device for name, p in model.named_parameters()}
    report.update({name: b.device for name, b in model.named_buffers()})
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    report.update({f"input[{i}]": x.device for i, x in enumerate(tensors)})
    return report
