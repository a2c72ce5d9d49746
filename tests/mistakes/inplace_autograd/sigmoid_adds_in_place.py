"""Writes `y = torch.sigmoid(x); y += 1`, changing the output that sigmoid saved for backward:
the forward values are right, and `backward()` raises.

Caught by: test_sigmoid_plus_one_gradient_is_analytic, test_sigmoid_plus_one_keeps_saved_tensors
"""

from reference.inplace_autograd import *


def sigmoid_plus_one(x):
    y = torch.sigmoid(x)
    y += 1
    return y
