"""Moves a copy, `copy.deepcopy(model).to(device)`: the caller's model and the optimizer built on
its Parameters are left behind, and the returned model is a stranger to both.

Caught by: test_move_model_keeps_the_module_and_every_parameter
"""

import copy

from reference.model_transfer import *


def move_model(model, device):
    return copy.deepcopy(model).to(device)
