"""Loads with `weights_only=False`, which unpickles anything, including code the checkpoint
asks to run.

Caught by: test_load_checkpoint_refuses_a_checkpoint_that_runs_code
"""

import torch

from reference.model_transfer import *


def load_checkpoint(source, model, device):
    map_location = torch.device("cpu") if torch.device(device).type == "cpu" else device
    state_dict = torch.load(source, map_location=map_location, weights_only=False)
    move_model(model, device)
    model.load_state_dict(state_dict)
    return model
