"""Looks at the parameters only, so a buffer left on another device (BatchNorm's running mean,
say) is missed.

Caught by: test_model_device_counts_buffers
"""

from reference.model_transfer import *


def model_device(model):
    devices = {p.device for p in model.parameters()}
    if len(devices) != 1:
        raise ValueError(f"model_device: parameters on {sorted(map(str, devices))}")
    return devices.pop()
