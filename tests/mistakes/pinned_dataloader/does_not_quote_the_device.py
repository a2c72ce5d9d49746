"""Refuses a device string torch cannot parse, but pastes it into the message without quote
marks, so an empty string or " cuda" with its stray space cannot be seen in the message.

Caught by: test_loader_kwargs_quotes_a_bad_device, test_to_device_quotes_a_bad_device
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def _check(device, func):
    if isinstance(device, str):
        try:
            torch.device(device)
        except RuntimeError:
            raise ValueError(f"{func}: not a device: {device}") from None


def loader_kwargs(device, *, num_workers=1):
    _check(device, "loader_kwargs")
    return _ref.loader_kwargs(device, num_workers=num_workers)


def to_device(batch, device):
    _check(device, "to_device")
    return _ref.to_device(batch, device)
