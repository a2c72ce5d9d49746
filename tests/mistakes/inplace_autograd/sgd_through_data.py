"""Updates through `p.data -= lr * p.grad`: the values are right, but `_version` does not move,
so autograd would not notice the change.

Caught by: test_sgd_step_updates_each_parameter_in_place
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    for p in params:
        if p.grad is not None:
            p.data -= lr * p.grad
            p.grad = None
