"""Moves with `p.data = p.data.to(device)` over `model.parameters()` only: the buffers stay
behind, and `.data` cannot even swap in data of another kind of tensor (meta).

Caught by: test_move_model_moves_parameters_and_buffers
"""

from reference.model_transfer import *


def move_model(model, device):
    for p in model.parameters():
        p.data = p.data.to(device)
    return model
