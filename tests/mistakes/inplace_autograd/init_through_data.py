"""Writes through `p.data.fill_(value)`: the values are right, but the version counter never
moves, so autograd cannot tell that the parameter changed.

Caught by: test_init_constant_sets_every_parameter_in_place
"""

from reference.inplace_autograd import *


def init_constant_(model, value):
    for p in model.parameters():
        p.data.fill_(value)
    return model
