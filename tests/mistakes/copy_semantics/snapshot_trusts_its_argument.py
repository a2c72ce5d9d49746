"""Snapshots without looking at what it was given, so snapshot(numpy_array) fails deep inside
with AttributeError ('numpy.ndarray' object has no attribute 'detach') instead of a TypeError.

Caught by: test_refuses_arguments_of_the_wrong_type
"""

from reference.copy_semantics import *


def snapshot(x):
    return x.detach().clone()
