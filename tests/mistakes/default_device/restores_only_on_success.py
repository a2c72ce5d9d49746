"""Saves the default device and puts it back after `factory()` returns, but without `try` /
`finally` (or a `with` block): when the factory raises, the default device stays changed.

Caught by: test_build_on_restores_the_default_device
"""

from reference.default_device import *


def build_on(device, factory):
    before = torch.get_default_device()
    torch.set_default_device(device)
    model = factory()
    torch.set_default_device(before)
    return model
