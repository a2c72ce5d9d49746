"""Sets the default device, builds, and then sets it to `"cpu"` in a `finally`, not to what it
was before the call: a caller who had made `meta` (or a GPU) the default loses it.

Caught by: test_build_on_restores_the_default_device
"""

from reference.default_device import *


def build_on(device, factory):
    torch.set_default_device(device)
    try:
        return factory()
    finally:
        torch.set_default_device("cpu")
