"""Gets around the leaf error by switching `requires_grad` off and back on, which makes
trainable a parameter that was frozen on purpose.

Caught by: test_init_constant_sets_every_parameter_in_place
"""

from reference.inplace_autograd import *


def init_constant_(model, value):
    for p in model.parameters():
        p.requires_grad_(False)
        p.fill_(value)
        p.requires_grad_(True)
    return model
