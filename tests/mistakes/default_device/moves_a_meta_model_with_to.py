"""Calls `model.to(device)` on a model built on meta: a meta tensor has no data to copy, so torch
raises `NotImplementedError: Cannot copy out of meta tensor; no data!`.

Caught by: test_materialize_equals_a_normal_build
"""

from reference.default_device import *


def materialize(model, device):
    return model.to(device)
