"""Reads a bare `cuda` as `cuda:0`, whatever the current GPU is; `x.to("cuda")` goes to the
current one.

Caught by: test_pick_device_reads_bare_cuda_as_the_current_gpu
"""

from reference.device_selection import *
from reference.device_selection import pick_device as _pick_device


def pick_device(requested=None, *, disable_cuda=False):
    device = _pick_device(requested, disable_cuda=disable_cuda)
    return torch.device("cuda", 0) if device.type == "cuda" and device.index is None else device
