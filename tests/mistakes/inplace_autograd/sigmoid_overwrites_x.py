"""Saves memory with `x.sigmoid_()`, overwriting the caller's `x` (and failing outright when `x`
is a leaf that requires grad).

Caught by: test_sigmoid_plus_one_leaves_x_alone
"""

from reference.inplace_autograd import *


def sigmoid_plus_one(x):
    return x.sigmoid_() + 1
