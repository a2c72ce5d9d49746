"""Finds the model's tensors in its state_dict, which leaves out a buffer registered with
persistent=False (an attention layer's mask, say): one left on another device is missed.

Caught by: test_model_device_counts_buffers_the_state_dict_leaves_out
"""

from reference.model_transfer import *


def model_device(model):
    _check_model(model, "model_device(model)")
    where = {}
    for name, tensor in model.state_dict().items():
        where.setdefault(tensor.device, []).append(name)
    if not where:
        raise ValueError("model_device(model): the model holds no tensors, so it is on no device")
    if len(where) > 1:
        listing = "; ".join(f"{d}: {', '.join(names)}" for d, names in where.items())
        raise ValueError(f"model_device(model): tensors on several devices: {listing}")
    return next(iter(where))
