"""Asks for the capability of `parsed.index or 0`: a bare `cuda` becomes cuda:0, though it
means the current GPU; with cuda:1 current and the two GPUs of different generations, it
answers for the wrong one.

Caught by: test_autocast_dtype_follows_the_bfloat16_support_of_the_gpu_it_is_given
"""

import torch

from reference.mixed_precision import *
from reference.mixed_precision import _device


def autocast_dtype(device):
    parsed = _device("autocast_dtype", device)
    if parsed.type == "cpu":
        return torch.bfloat16
    major, _ = torch.cuda.get_device_capability(parsed.index or 0)
    return torch.bfloat16 if major >= 8 else torch.float16
