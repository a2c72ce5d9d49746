"""Allocates with `to_empty` and resets every module that holds tensors, in `modules()` order,
and stops there: `to_empty` gives each module a new tensor of its own, so a weight two modules
shared is now two weights, with different values (the model has one parameter more than the
same model built on the device).

Caught by: test_materialize_keeps_tied_weights_tied
"""

import torch

from reference.default_device import *
from reference.default_device import _as_device


def materialize(model, device):
    device = _as_device(device, "materialize")
    model.to_empty(device=device)
    with torch.no_grad():
        for module in model.modules():
            if [*module.parameters(recurse=False), *module.buffers(recurse=False)]:
                module.reset_parameters()
    return model
