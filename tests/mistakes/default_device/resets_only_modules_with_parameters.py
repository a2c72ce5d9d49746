"""Calls `reset_parameters()` only on modules that own parameters. A BatchNorm with
`affine=False` owns buffers and no parameters, so its running statistics stay uninitialised.

Caught by: test_materialize_initialises_buffers
"""

from reference.default_device import *


def materialize(model, device):
    model.to_empty(device=device)
    with torch.no_grad():
        for module in model.modules():
            if list(module.parameters(recurse=False)):
                module.reset_parameters()
    return model
