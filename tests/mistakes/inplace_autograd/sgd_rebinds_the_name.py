"""Writes `p = p - lr * p.grad`, which makes a new tensor and binds it to the loop variable: the
parameter itself never changes.

Caught by: test_sgd_step_updates_each_parameter_in_place
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p = p - lr * p.grad
                p.grad = None
