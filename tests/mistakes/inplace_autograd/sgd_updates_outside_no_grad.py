"""Runs `p -= lr * p.grad` while autograd is recording, which torch refuses on a leaf that
requires grad.

Caught by: test_sgd_step_updates_each_parameter_in_place
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    for p in params:
        if p.grad is not None:
            p -= lr * p.grad
            p.grad = None
