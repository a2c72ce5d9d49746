"""Refuses a device string torch cannot parse, but pastes it into the message without quote
marks, so an empty string or " cpu" with its stray space cannot be seen in the message.

Caught by: test_move_model_and_load_checkpoint_reject_a_device_they_cannot_parse
"""

import reference.model_transfer as _ref
from reference.model_transfer import *


def move_model(model, device):
    if isinstance(device, str):
        try:
            torch.device(device)
        except RuntimeError:
            raise ValueError(f"move_model: not a device: {device}") from None
    return _ref.move_model(model, device)
