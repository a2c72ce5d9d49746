"""Answers from belief instead of from torch: it reports every way of making a tensor on the
default device, but `torch.from_numpy` shares the array's memory, which is on the CPU.

Caught by: test_creates_on_reports_where_each_tensor_lands
"""

from reference.default_device import *


def creates_on(device):
    device = torch.device(device)
    return {
        name: device for name in ("torch.zeros", "torch.tensor", "torch.from_numpy", "nn.Linear")
    }
