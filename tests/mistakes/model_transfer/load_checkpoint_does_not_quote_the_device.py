"""Checks the device in load_checkpoint with its own words, without quote marks, so a device
string with a stray space (" cpu") or an empty one cannot be seen in the message.

Caught by: test_move_model_and_load_checkpoint_reject_a_device_they_cannot_parse
"""

import reference.model_transfer as _ref
from reference.model_transfer import *


def load_checkpoint(source, model, device):
    if isinstance(device, str):
        try:
            torch.device(device)
        except RuntimeError:
            raise ValueError(f"load_checkpoint: unknown device {device}") from None
    return _ref.load_checkpoint(source, model, device)
