"""Parses the device but never asks whether this machine has it: `'cuda:7'` on a machine with
no GPU (or two) goes straight to torch, which fails deep inside ("Torch not compiled with CUDA
enabled", "invalid device ordinal") without naming the device, after work has begun.

Caught by: test_a_device_this_machine_lacks_is_a_value_error
"""

import numpy as np
import torch
from torch import nn

from reference.default_device import *


def build_on(device, factory):
    with torch.device(device):
        return factory()


def creates_on(device):
    with torch.device(device):
        made = {
            "torch.zeros": torch.zeros(2),
            "torch.tensor": torch.tensor([1.0, 2.0]),
            "torch.from_numpy": torch.from_numpy(np.zeros(2)),
            "nn.Linear": nn.Linear(2, 2).weight,
        }
    return {name: t.device for name, t in made.items()}
