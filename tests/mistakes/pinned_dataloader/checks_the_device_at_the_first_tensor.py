"""Checks that the device exists only when it meets a tensor, so a batch without tensors moves
"successfully" to a GPU the machine does not have, and a bad device is reported or not
depending on the data.

Caught by: test_to_device_refuses_a_device_that_does_not_exist
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def to_device(batch, device):
    target = _ref._as_device(device, "to_device")
    if _ref._is_accelerator(target):
        real_to = torch.Tensor.to

        def checked(value):
            if isinstance(value, torch.Tensor):
                _ref._check_exists(target, "to_device")
                return real_to(value, target, non_blocking=value.is_pinned())
            if isinstance(value, dict):
                return {k: checked(v) for k, v in value.items()}
            if isinstance(value, tuple) and hasattr(value, "_fields"):
                return type(value)(*(checked(v) for v in value))
            if isinstance(value, (list, tuple)):
                return type(value)(checked(v) for v in value)
            return value

        return checked(batch)
    return _ref.to_device(batch, device)
