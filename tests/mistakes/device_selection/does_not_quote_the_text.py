"""Refuses a string torch cannot parse, but pastes it into the message without quote marks, so
an empty string or one with stray spaces (" cuda") is invisible in the message.

Caught by: test_pick_device_rejects_nonsense_with_the_text_quoted
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    if isinstance(requested, str):
        try:
            torch.device(requested)
        except RuntimeError:
            raise ValueError(f"not a device torch understands: {requested}") from None
    return _ref.pick_device(requested, disable_cuda=disable_cuda)
