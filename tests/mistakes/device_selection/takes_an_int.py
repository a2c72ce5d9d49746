"""Hands any request to `torch.device`, so an int (which torch reads as the current
accelerator) is taken for a device name.

Caught by: test_pick_device_refuses_what_is_not_a_request
"""

from reference.device_selection import *
from reference.device_selection import pick_device as _pick_device


def pick_device(requested=None, *, disable_cuda=False):
    if isinstance(requested, int) and not isinstance(requested, bool):
        try:
            requested = torch.device(requested)
        except RuntimeError as err:
            raise ValueError(f"pick_device({requested!r}): {err}") from None
    return _pick_device(requested, disable_cuda=disable_cuda)
