"""Assigns `p.data = torch.full_like(p, value)`, the old idiom: the same Parameter object, but
its contents are swapped behind autograd's back and `_version` does not move.

Caught by: test_init_constant_sets_every_parameter_in_place
"""

from reference.inplace_autograd import *


def init_constant_(model, value):
    for p in model.parameters():
        p.data = torch.full_like(p, value)
    return model
