"""Keeps tied weights tied (allocating with `swap_tensors`, which keeps each Parameter object),
but lets every module holding the tied weight reset it: the last one's values win, where a model
built on the device holds the first one's (the tie is made after both were initialised).

Caught by: test_materialize_keeps_tied_weights_tied
"""

import torch

from reference.default_device import *
from reference.default_device import _as_device


def materialize(model, device):
    device = _as_device(device, "materialize")
    swap = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        model.to_empty(device=device)
    finally:
        torch.__future__.set_swap_module_params_on_conversion(swap)
    with torch.no_grad():
        for module in model.modules():
            if [*module.parameters(recurse=False), *module.buffers(recurse=False)]:
                module.reset_parameters()
    return model
