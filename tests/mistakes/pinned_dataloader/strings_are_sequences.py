"""Recurses into every `collections.abc.Sequence`, and a string is one: each character is a
string again, so a batch holding a file name never finishes moving.

Caught by: test_to_device_keeps_the_structure
"""

from collections.abc import Sequence

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def _move(value, target, accelerator):
    if isinstance(value, dict):
        return {k: _move(v, target, accelerator) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_move(v, target, accelerator) for v in value))
    if isinstance(value, Sequence):
        return type(value)([_move(v, target, accelerator) for v in value])
    return _ref._move(value, target, accelerator)


def to_device(batch, device):
    target = _ref._as_device(device, "to_device")
    return _move(batch, target, _ref._is_accelerator(target))
