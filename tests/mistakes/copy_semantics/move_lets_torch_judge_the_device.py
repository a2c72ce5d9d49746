"""Normalises the device and moves, but leaves it to torch to find out that the device does
not exist: "cuda:7" on a CPU-only build escapes as torch's AssertionError ("Torch not compiled
with CUDA enabled"), and "meta:3" is accepted.

Caught by: test_move_refuses_a_device_that_does_not_exist
"""

from reference.copy_semantics import *


def move(x, device):
    try:
        target = torch.device(device)
    except RuntimeError:
        raise ValueError(f"move(x, {device!r}): not a device") from None
    if (x.device.type, x.device.index or 0) == (target.type, target.index or 0):
        return x
    return x.to(target)
