"""Reads the checkpoint before it checks the device, so a device that does not exist is refused
only after the whole file was read (and, for a large checkpoint, after minutes of loading).

Caught by: test_load_checkpoint_checks_the_device_before_reading
"""

from reference.model_transfer import *


def load_checkpoint(source, model, device):
    state_dict = torch.load(source, map_location="cpu", weights_only=True)
    move_model(model, device)
    model.load_state_dict(state_dict)
    return model
