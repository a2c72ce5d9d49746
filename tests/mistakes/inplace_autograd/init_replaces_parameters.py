"""Replaces each parameter with a new `nn.Parameter`: the model looks right, but an optimizer
built earlier still holds, and trains, the old ones.

Caught by: test_init_constant_sets_every_parameter_in_place
"""

from reference.inplace_autograd import *


def init_constant_(model, value):
    for module in model.modules():
        for name, p in list(module.named_parameters(recurse=False)):
            new = nn.Parameter(torch.full_like(p, value), requires_grad=p.requires_grad)
            setattr(module, name, new)
    return model
