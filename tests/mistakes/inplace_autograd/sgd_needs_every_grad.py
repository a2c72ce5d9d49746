"""Assumes every parameter has a grad, and crashes on one whose `.grad` is None (a frozen or
unused parameter).

Caught by: test_sgd_step_skips_parameters_without_a_grad
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
