"""Keeps the blitz's update, `f.data.sub_(f.grad.data * lr)`, and adds what the contract asks
besides (skip a parameter without a grad, clear the grad): the values are right, but `_version`
does not move, so autograd would not notice the change.

Caught by: test_sgd_step_updates_each_parameter_in_place
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    for f in params:
        if f.grad is None:
            continue
        f.data.sub_(f.grad.data * lr)
        f.grad = None
