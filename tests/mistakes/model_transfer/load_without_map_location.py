"""Calls `torch.load` without `map_location`, so each tensor goes back to the device it was
saved from: a checkpoint from a GPU host cannot be loaded on a CPU-only machine.

Caught by: test_load_checkpoint_reads_a_gpu_checkpoint_on_a_cpu_host
"""

import torch

from reference.model_transfer import *


def load_checkpoint(source, model, device):
    state_dict = torch.load(source, weights_only=True)
    model.load_state_dict(state_dict)
    return move_model(model, device)
