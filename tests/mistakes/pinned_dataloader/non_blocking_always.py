"""Copies every tensor with `non_blocking=True`, pinned or not, and to the CPU too: from pageable
memory the flag promises an overlap that cannot happen.

Caught by: test_to_device_non_blocking_only_when_pinned
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    return _ref._move(batch, _ref._as_device(device, "to_device"), True)
