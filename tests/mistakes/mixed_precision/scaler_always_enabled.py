"""Makes an enabled scaler whatever the type: bfloat16 gets a scaler it does not need, which
skips steps and changes its scale for nothing.

Caught by: test_make_scaler_scales_only_float16, test_make_scaler_for_a_gpu
"""

import torch

from reference.mixed_precision import *


def make_scaler(device, dtype):
    autocast_dtype(device)  # the same checks
    return torch.amp.GradScaler(torch.device(device).type)
