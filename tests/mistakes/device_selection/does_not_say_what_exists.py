"""Refuses a GPU that does not exist, but only says so: the message names the request and not
what this machine has, so the reader cannot tell which index to ask for instead.

Caught by: test_pick_device_rejects_a_gpu_that_does_not_exist
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    try:
        return _ref.pick_device(requested, disable_cuda=disable_cuda)
    except ValueError as err:
        if "asked for" in str(err):
            raise ValueError(f"pick_device({requested!r}): no such GPU") from None
        raise
