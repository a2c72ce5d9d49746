"""Refuses a model spread across devices, but names only the devices, not the parameters and
buffers on them, so the reader cannot tell which part was left behind.

Caught by: test_model_device_refuses_a_model_spread_across_devices, test_model_device_counts_buffers
"""

from reference.model_transfer import *


def model_device(model):
    devices = {t.device for t in [*model.parameters(), *model.buffers()]}
    if len(devices) != 1:
        raise ValueError(f"the model is on {len(devices)} devices: {sorted(map(str, devices))}")
    return devices.pop()
