"""Hands the device straight to `model.to`, so "cuda:7" on a CPU-only build escapes as torch's
AssertionError ("Torch not compiled with CUDA enabled"), and "meta:3" is accepted.

Caught by: test_move_model_refuses_a_device_that_does_not_exist
"""

from reference.model_transfer import *


def move_model(model, device):
    if isinstance(device, str):
        try:
            device = torch.device(device)
        except RuntimeError:
            raise ValueError(f"move_model: {device!r} is not a device") from None
    return model.to(device)
