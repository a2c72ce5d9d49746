"""Compares `str(x.device)` with `str(device)`, so `"cpu:0"` and `torch.device("cpu", 0)` look
like another device and `x` is copied onto the CPU it is already on.

Caught by: test_move_returns_x_itself_when_already_there
"""

from reference.copy_semantics import *


def move(x, device):
    return x if str(x.device) == str(device) else x.to(device)
