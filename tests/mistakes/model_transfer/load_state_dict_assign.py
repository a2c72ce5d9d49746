"""Loads with `load_state_dict(state_dict, assign=True)`, which replaces the model's Parameters
with the loaded tensors instead of copying into them: an optimizer built earlier is stale.

Caught by: test_load_checkpoint_loads_into_the_same_model
"""

import torch

from reference.model_transfer import *


def load_checkpoint(source, model, device):
    device = torch.device(device)
    map_location = torch.device("cpu") if device.type == "cpu" else device
    state_dict = torch.load(source, map_location=map_location, weights_only=True)
    model.load_state_dict(state_dict, assign=True)
    return move_model(model, device)
