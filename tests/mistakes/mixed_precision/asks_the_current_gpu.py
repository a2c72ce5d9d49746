"""Asks `torch.cuda.is_bf16_supported(including_emulation=False)`, which answers for the
current GPU, whichever GPU `device` names: with cuda:0 an Ampere (sm_80) and cuda:1 a Turing
(sm_75), it answers bfloat16 for cuda:1.

Caught by: test_autocast_dtype_follows_the_bfloat16_support_of_the_gpu_it_is_given
"""

import torch

from reference.mixed_precision import *
from reference.mixed_precision import _device


def autocast_dtype(device):
    if _device("autocast_dtype", device).type == "cpu":
        return torch.bfloat16
    if torch.cuda.is_bf16_supported(including_emulation=False):
        return torch.bfloat16
    return torch.float16
