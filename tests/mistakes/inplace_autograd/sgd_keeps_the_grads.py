"""Forgets to clear the grads, so the next `backward()` adds to them and the next step uses old
and new gradients together.

Caught by: test_sgd_step_clears_the_grads, test_sgd_step_trains_a_model_for_two_steps
"""

from reference.inplace_autograd import *


def sgd_step_(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
