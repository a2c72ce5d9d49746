"""Turns any request into a string first, so pick_device(b"cuda") or pick_device(["cpu"]) is
a confusing "not a device" ValueError instead of a TypeError about the argument's type.

Caught by: test_pick_device_refuses_what_is_not_a_request
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    if requested is not None and not isinstance(requested, torch.device):
        requested = str(requested)
    return _ref.pick_device(requested, disable_cuda=disable_cuda)
