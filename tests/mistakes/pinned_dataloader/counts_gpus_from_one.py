"""Accepts GPU indices up to and including the device count, so on a machine with 2 GPUs
`"cuda:2"`, a third GPU, passes the check: GPUs are numbered from 0.

Caught by: test_to_device_refuses_a_device_that_does_not_exist
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def to_device(batch, device):
    target = _ref._as_device(device, "to_device")
    if _ref._is_accelerator(target):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if target.type != "cuda" or count == 0 or (target.index or 0) > count:
            raise ValueError(f"to_device: there is no {str(target)!r} here")
    return _ref._move(batch, target, _ref._is_accelerator(target))
