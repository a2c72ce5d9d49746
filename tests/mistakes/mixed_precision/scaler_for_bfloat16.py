"""Turns the scaler around: enabled for bfloat16, disabled for float16, whose small gradients
then underflow to zero.

Caught by: test_make_scaler_scales_only_float16, test_make_scaler_for_a_gpu
"""

import torch

from reference.mixed_precision import *


def make_scaler(device, dtype):
    autocast_dtype(device)  # the same checks
    return torch.amp.GradScaler(torch.device(device).type, enabled=dtype == torch.bfloat16)
