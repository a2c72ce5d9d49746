"""Moves to whatever device torch can parse, so on a machine without it `"cuda:7"` falls through
to torch's internals (on a CPU-only build: `AssertionError: Torch not compiled with CUDA
enabled`) instead of a ValueError that names the device.

Caught by: test_to_device_refuses_a_device_that_does_not_exist
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def to_device(batch, device):
    target = _ref._as_device(device, "to_device")
    return _ref._move(batch, target, _ref._is_accelerator(target))
