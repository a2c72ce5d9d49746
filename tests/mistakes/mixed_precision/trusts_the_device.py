"""Never checks the device: text torch cannot parse raises torch's RuntimeError, and meta, a
GPU that is not there or an unknown type get an answer as if they could train.

Caught by: test_autocast_dtype_refuses_other_devices, test_autocast_dtype_refuses_a_missing_gpu
"""

import torch

from reference.mixed_precision import *


def autocast_dtype(device):
    if torch.device(device).type == "cpu":
        return torch.bfloat16
    return (
        torch.bfloat16 if torch.cuda.is_bf16_supported(including_emulation=False) else torch.float16
    )
