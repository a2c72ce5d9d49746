"""Passes the device straight to torch, so a typo such as "gpu" escapes as torch's RuntimeError
instead of a ValueError that quotes it.

Caught by: test_loader_kwargs_quotes_a_bad_device, test_to_device_quotes_a_bad_device
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def loader_kwargs(device, *, num_workers=1):
    return _ref.loader_kwargs(torch.device(device), num_workers=num_workers)


def to_device(batch, device):
    return _ref.to_device(batch, torch.device(device))
