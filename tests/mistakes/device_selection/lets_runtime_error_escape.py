"""Passes the request straight to torch.device, so "gpu" escapes as torch's raw RuntimeError.

Caught by: test_pick_device_rejects_nonsense_with_the_text_quoted
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    if isinstance(requested, str):
        requested = torch.device(requested)
    return _ref.pick_device(requested, disable_cuda=disable_cuda)
