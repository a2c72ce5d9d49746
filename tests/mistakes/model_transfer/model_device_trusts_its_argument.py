"""Never checks that it was given a module, so model_device(tensor) fails deep inside with
AttributeError ('Tensor' object has no attribute 'named_parameters') instead of a TypeError.

Caught by: test_refuses_arguments_of_the_wrong_type
"""

from reference.model_transfer import *


def model_device(model):
    devices = {t.device for _, t in [*model.named_parameters(), *model.named_buffers()]}
    if len(devices) != 1:
        raise ValueError(f"model_device: the model is on {len(devices)} devices, not one")
    return devices.pop()
