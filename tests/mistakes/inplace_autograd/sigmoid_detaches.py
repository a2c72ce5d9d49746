"""Detaches sigmoid's output before adding 1, so the result is cut from the graph and `x` gets
no gradient.

Caught by: test_sigmoid_plus_one_values, test_sigmoid_plus_one_gradient_is_analytic
"""

from reference.inplace_autograd import *


def sigmoid_plus_one(x):
    return torch.sigmoid(x).detach() + 1
