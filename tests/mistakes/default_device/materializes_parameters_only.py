"""Replaces each parameter with a new one on the device and resets the modules, but forgets the
buffers: BatchNorm's running statistics stay on meta.

Caught by: test_materialize_initialises_buffers
"""

from reference.default_device import *


def materialize(model, device):
    for module in model.modules():
        for name, p in list(module.named_parameters(recurse=False)):
            fresh = torch.empty_like(p, device=device)
            setattr(module, name, nn.Parameter(fresh, requires_grad=p.requires_grad))
    with torch.no_grad():
        for module in model.modules():
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
    return model
