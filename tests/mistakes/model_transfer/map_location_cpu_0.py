"""Passes the device through to `map_location` as given: torch.load knows `'cpu'` but not
`'cpu:0'`, and fails with "don't know how to restore data location".

Caught by: test_load_checkpoint_reads_a_gpu_checkpoint_on_a_cpu_host
"""

import torch

from reference.model_transfer import *


def load_checkpoint(source, model, device):
    state_dict = torch.load(source, map_location=device, weights_only=True)
    move_model(model, device)
    model.load_state_dict(state_dict)
    return model
