"""Calls `p.fill_(value)` while autograd is recording, which torch refuses on a leaf that
requires grad.

Caught by: test_init_constant_sets_every_parameter_in_place
"""

from reference.inplace_autograd import *


def init_constant_(model, value):
    for p in model.parameters():
        p.fill_(value)
    return model
