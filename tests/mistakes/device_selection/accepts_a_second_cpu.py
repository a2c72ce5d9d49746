"""Reads every CPU index as the CPU, so pick_device("cpu:3") returns a device that does not
exist (torch.cpu.device_count() is 1).

Caught by: test_pick_device_rejects_a_second_cpu
"""

import reference.device_selection as _ref
from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    kind, _, index = requested.partition(":") if isinstance(requested, str) else ("", "", "")
    if kind in ("cpu", "meta") and index.isdigit():
        requested = torch.device(requested)
    if isinstance(requested, torch.device) and requested.type in ("cpu", "meta"):
        return requested
    return _ref.pick_device(requested, disable_cuda=disable_cuda)
