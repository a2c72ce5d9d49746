"""Treats every device but the CPU as an accelerator, so batches for `meta`, which hold no data,
are pinned and copied with `non_blocking=True`.

Caught by: test_loader_kwargs_is_empty_for_meta, test_to_device_non_blocking_only_when_pinned
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def _is_accelerator(device):
    return device.type != "cpu"


def loader_kwargs(device, *, num_workers=1):
    if torch.device(device).type == "meta":
        return {"num_workers": num_workers, "pin_memory": True}
    return _ref.loader_kwargs(device, num_workers=num_workers)


def to_device(batch, device):
    target = torch.device(device)
    return _ref._move(batch, target, _is_accelerator(target))
