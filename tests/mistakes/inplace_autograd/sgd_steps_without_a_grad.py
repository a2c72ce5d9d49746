"""Treats a missing grad as zeros and still writes to the parameter: the values survive, but a
parameter that took no part in the loss is modified in place (its `_version` moves).

Caught by: test_sgd_step_skips_parameters_without_a_grad
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    with torch.no_grad():
        for p in params:
            grad = torch.zeros_like(p) if p.grad is None else p.grad
            p -= lr * grad
            p.grad = None
