"""Calls `torch.set_default_device(device)` and builds, but never sets it back: every tensor the
rest of the program creates without naming a device now lands on that device too.

Caught by: test_build_on_restores_the_default_device
"""

from reference.default_device import *


def build_on(device, factory):
    torch.set_default_device(device)
    return factory()
