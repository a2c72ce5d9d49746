"""Tries to make a bfloat16 tensor on the GPU and answers bfloat16 when that works; but every
GPU this torch runs on can hold one, whether it computes in bfloat16 natively or not, so it
answers bfloat16 for a Turing (sm_75) too (and gives the process a CUDA context on each GPU it
asks).

Caught by: test_autocast_dtype_follows_the_bfloat16_support_of_the_gpu_it_is_given
"""

import torch

from reference.mixed_precision import *
from reference.mixed_precision import _device


def autocast_dtype(device):
    parsed = _device("autocast_dtype", device)
    if parsed.type == "cpu":
        return torch.bfloat16
    try:
        torch.ones(1, dtype=torch.bfloat16, device=parsed)
    except RuntimeError:
        return torch.float16
    return torch.bfloat16
