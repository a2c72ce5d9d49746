"""Calls `reset_parameters()` on every module that has one, including a block that holds no
tensors of its own but whose `reset_parameters()` resets its children: those children are
initialised twice, and draw other random numbers than a normal build.

Caught by: test_materialize_resets_each_module_once_in_build_order
"""

import torch

from reference.default_device import *
from reference.default_device import _as_device


def materialize(model, device):
    device = _as_device(device, "materialize")
    model.to_empty(device=device)
    with torch.no_grad():
        for module in model.modules():
            if callable(getattr(module, "reset_parameters", None)):
                module.reset_parameters()
    return model
