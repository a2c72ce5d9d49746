"""Passes `non_blocking=t.is_pinned()` whatever the target, so a pinned tensor copied to the CPU
or to meta also asks for an asynchronous copy that only an accelerator can make.

Caught by: test_to_device_non_blocking_only_when_pinned
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def to_device(batch, device):
    return _ref._move(batch, _ref._as_device(device, "to_device"), True)
