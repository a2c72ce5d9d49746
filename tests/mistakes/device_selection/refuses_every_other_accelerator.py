"""Accepts cpu, meta and the CUDA GPUs there are, and refuses every other accelerator type
outright: right on a CUDA machine or a laptop, wrong on a Mac, whose `mps` exists.

Caught by: test_pick_device_accepts_another_accelerator_that_is_available
"""

import torch

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    if requested is None:
        return _ref.pick_device(None, disable_cuda=disable_cuda)
    device = _ref._requested(requested)
    if device.type not in ("cpu", "meta", "cuda"):
        raise ValueError(f"pick_device({requested!r}): only cpu, meta and cuda are supported")
    return _ref.pick_device(requested, disable_cuda=disable_cuda)
