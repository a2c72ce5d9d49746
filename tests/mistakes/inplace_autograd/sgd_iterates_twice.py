"""Loops over `params` twice (update, then clear): with a generator such as
`model.parameters()`, the second loop sees nothing and the grads stay.

Caught by: test_sgd_step_accepts_a_generator
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None
