"""Asks `torch.cuda.is_bf16_supported()` with its default, which also says True for a GPU that
can only emulate bfloat16 (Turing, sm_75): that GPU then trains in emulated bfloat16 instead
of float16 with a scaler.

Caught by: test_autocast_dtype_follows_the_bfloat16_support_of_the_gpu_it_is_given
"""

import torch

import reference.mixed_precision as _reference
from reference.mixed_precision import *


def autocast_dtype(device):
    parsed = _reference._device("autocast_dtype", device)
    if parsed.type == "cpu":
        return torch.bfloat16
    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
