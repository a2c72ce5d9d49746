"""Checks a CUDA device against the GPU count, but passes any other type to torch, so
move(x, "mps") on Linux escapes as torch's RuntimeError instead of a ValueError naming it.

Caught by: test_move_refuses_a_device_that_does_not_exist
"""

import reference.copy_semantics as _ref
from reference.copy_semantics import *


def move(x, device):
    target = torch.device(device) if isinstance(device, (str, torch.device)) else device
    if isinstance(target, torch.device) and target.type in ("mps", "xpu"):
        return x.to(target)
    return _ref.move(x, device)
