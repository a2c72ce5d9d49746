"""Allocates each tensor's twin on the device and fills it with `copy_(t, non_blocking=True)`,
pinned or not: the simulated move sees the copy and how it was asked for, whichever call
made it.

Caught by: test_to_device_non_blocking_only_when_pinned
"""

from reference.pinned_dataloader import *
from reference.pinned_dataloader import _as_device, _check_exists


def _walk(value, target):
    if isinstance(value, torch.Tensor):
        if value.device.type == target.type == "cpu":
            return value
        return torch.empty_like(value, device=target).copy_(value, non_blocking=True)
    if isinstance(value, dict):
        moved = {k: _walk(v, target) for k, v in value.items()}
        if type(value) is dict:
            return moved
        clone = value.copy()
        clone.update(moved)
        return clone
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_walk(v, target) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_walk(v, target) for v in value)
    return value


def to_device(batch, device):
    target = _as_device(device, f"to_device(..., {device!r})")
    _check_exists(target, f"to_device(..., {device!r})")
    return _walk(batch, target)
