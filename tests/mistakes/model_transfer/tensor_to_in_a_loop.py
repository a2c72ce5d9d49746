"""Calls `t.to(device)` on every parameter and buffer and drops the result: unlike `Module.to`,
`Tensor.to` is not in place, so nothing moves.

Caught by: test_move_model_moves_parameters_and_buffers
"""

from reference.model_transfer import *


def move_model(model, device):
    for t in [*model.parameters(), *model.buffers()]:
        t.to(device)
    return model
