"""Hides the in-place add from autograd with `y.data += 1`: no error at all, and silently wrong
gradients, since backward computes `s * (1 - s)` from the changed output.

Caught by: test_sigmoid_plus_one_passes_gradcheck, test_sigmoid_plus_one_keeps_saved_tensors
"""

from reference.inplace_autograd import *


def sigmoid_plus_one(x):
    y = torch.sigmoid(x)
    y.data += 1
    return y
