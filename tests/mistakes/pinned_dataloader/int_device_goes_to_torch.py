"""Hands anything that is not a str straight to `torch.device`, so `0` and `1` (which torch
reads as "the current accelerator's device 0") come back as a RuntimeError or as a device,
instead of a TypeError: this kata's devices are strings or `torch.device` objects.

Caught by: test_a_device_that_is_not_a_str_is_a_type_error
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def _as_device(device, func):
    if isinstance(device, str):
        return _ref._as_device(device, func)
    return torch.device(device)


def loader_kwargs(device, *, num_workers=1):
    return _ref.loader_kwargs(_as_device(device, "loader_kwargs"), num_workers=num_workers)


def to_device(batch, device):
    return _ref.to_device(batch, _as_device(device, "to_device"))
