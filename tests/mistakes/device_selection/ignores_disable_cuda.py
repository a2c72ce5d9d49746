"""Ignores `disable_cuda`: a --disable-cuda flag that does nothing.

Caught by: test_pick_device_none_gives_the_best_device, test_pick_device_rejects_cuda_when_disabled
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    return _ref.pick_device(requested, disable_cuda=False)
