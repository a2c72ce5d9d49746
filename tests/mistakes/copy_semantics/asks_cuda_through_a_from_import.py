"""Fills in a missing index with `current_device()`, imported `from torch.cuda`, whatever the
device: moving a CPU tensor to `"cpu"` starts CUDA. The test's recorder must reach a name the
kata imported, not only `torch.cuda.current_device`.

Caught by: test_move_between_cpu_spellings_never_asks_cuda
"""

from torch.cuda import current_device

from reference.copy_semantics import *


def _full(device):
    device = torch.device(device)
    index = current_device() if device.index is None else device.index
    return device.type, index


def move(x, device):
    if _full(x.device) == _full(device):
        return x
    return x.to(device)
