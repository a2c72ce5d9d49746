"""Calls `x.to(device)` without normalising the device, so `"cpu:0"` makes a copy: torch
compares `cpu:0` with `x.device`, which is `cpu`, and finds them different.

Caught by: test_move_returns_x_itself_when_already_there
"""

from reference.copy_semantics import *


def move(x, device):
    return x.to(device)
