"""Adds the 1 in place under `torch.no_grad()`, taking the lesson of the parameter updates to
the wrong place: no_grad keeps the add out of the graph, but sigmoid's output is still the
tensor autograd saved for backward, its version counter still moves, and `backward()` raises.

Caught by: test_sigmoid_plus_one_keeps_saved_tensors, test_sigmoid_plus_one_gradient_is_analytic
"""

import torch

from reference.inplace_autograd import *


def sigmoid_plus_one(x):
    y = torch.sigmoid(x)
    with torch.no_grad():
        y.add_(1)
    return y
