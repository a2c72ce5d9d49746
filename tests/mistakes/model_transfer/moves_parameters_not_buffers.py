"""Rebuilds every parameter on the device and forgets the buffers, so BatchNorm's running
statistics (and any registered buffer) stay behind.

Caught by: test_move_model_moves_parameters_and_buffers
"""

from torch import nn

from reference.model_transfer import *


def move_model(model, device):
    for module in model.modules():
        for name, param in list(module.named_parameters(recurse=False)):
            moved = nn.Parameter(param.detach().to(device), requires_grad=param.requires_grad)
            module.register_parameter(name, moved)
    return model
