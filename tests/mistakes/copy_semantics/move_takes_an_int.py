"""Lets `torch.device` read any `device`, so an int (which torch reads as the current
accelerator, `cuda:0` on a GPU machine) is taken for a device name.

Caught by: test_refuses_arguments_of_the_wrong_type
"""

from reference.copy_semantics import *
from reference.copy_semantics import move as _move


def move(x, device):
    if isinstance(device, int):
        try:
            device = torch.device(device)
        except RuntimeError as err:
            raise ValueError(f"move(x, {device!r}): {err}") from None
    return _move(x, device)
