"""Fills in a missing index with `torch.cuda.current_device()` whatever the device, so moving a
CPU tensor to `"cpu"` starts CUDA (and fails outright on a build without it).

Caught by: test_move_between_cpu_spellings_never_asks_cuda
"""

from reference.copy_semantics import *


def _full(device):
    device = torch.device(device)
    index = torch.cuda.current_device() if device.index is None else device.index
    return device.type, index


def move(x, device):
    if _full(x.device) == _full(device):
        return x
    return x.to(device)
