"""Keeps only the tensors of each container, so a batch's file names, ids and other plain values
disappear on the way to the device.

Caught by: test_to_device_keeps_the_structure, test_forced_pin_path_pins_every_batch
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def _keep(value):
    return isinstance(value, (torch.Tensor, dict, list, tuple))


def _move(value, target, accelerator):
    if isinstance(value, dict):
        return {k: _move(v, target, accelerator) for k, v in value.items() if _keep(v)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_move(v, target, accelerator) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_move(v, target, accelerator) for v in value if _keep(v))
    return _ref._move(value, target, accelerator)


def to_device(batch, device):
    target = _ref._as_device(device, "to_device")
    return _move(batch, target, _ref._is_accelerator(target))
