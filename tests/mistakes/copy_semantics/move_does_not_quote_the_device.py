"""Refuses a device string torch cannot parse, but pastes it into the message without quote
marks, so an empty string or " cpu" with its stray space cannot be seen in the message.

Caught by: test_move_rejects_a_device_it_cannot_parse
"""

import reference.copy_semantics as _ref
from reference.copy_semantics import *


def move(x, device):
    if isinstance(device, str):
        try:
            torch.device(device)
        except RuntimeError:
            raise ValueError(f"move: not a device: {device}") from None
    return _ref.move(x, device)
