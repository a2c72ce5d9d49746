"""Always copies with the default `non_blocking=False`, so the pinned batches the DataLoader
prepared are copied synchronously and pinning buys no overlap.

Caught by: test_to_device_non_blocking_only_when_pinned, test_forced_pin_path_pins_every_batch
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def to_device(batch, device):
    return _ref._move(batch, _ref._as_device(device, "to_device"), False)
