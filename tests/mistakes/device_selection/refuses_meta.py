"""Accepts only cpu and GPUs, so pick_device("meta") raises, although the meta device (shapes,
no data) exists on every machine.

Caught by: test_pick_device_accepts_cpu_and_meta
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    if isinstance(requested, (str, torch.device)) and str(requested).startswith("meta"):
        raise ValueError(f"pick_device({requested!r}): use cpu or cuda")
    return _ref.pick_device(requested, disable_cuda=disable_cuda)
