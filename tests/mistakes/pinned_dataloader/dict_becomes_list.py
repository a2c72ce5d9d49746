"""Treats a dict like any other collection and returns a list of its moved values, so the keys
are lost.

Caught by: test_to_device_keeps_the_structure
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def _move(value, target, accelerator):
    if isinstance(value, dict):
        return [_move(v, target, accelerator) for v in value.values()]
    if isinstance(value, torch.Tensor):
        return _ref._move(value, target, accelerator)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_move(v, target, accelerator) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_move(v, target, accelerator) for v in value)
    return value


def to_device(batch, device):
    target = _ref._as_device(device, "to_device")
    return _move(batch, target, _ref._is_accelerator(target))
