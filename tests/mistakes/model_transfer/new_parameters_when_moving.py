"""Moves each tensor with `Tensor.to` and wraps it in a new `nn.Parameter` whenever its device
changes: the model ends up on the device, but an optimizer built before the move still holds
the old Parameters and updates nothing the model uses.

Caught by: test_move_model_keeps_every_parameter_when_it_moves
"""

from reference.model_transfer import *
from reference.model_transfer import _check_model, _parse_device


def move_model(model, device):
    call = f"move_model(model, {device!r})"
    _check_model(model, call)
    target = _parse_device(device, call)
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is not None and p.device != target:
                moved = nn.Parameter(p.detach().to(target), requires_grad=p.requires_grad)
                module._parameters[name] = moved
        for name, b in list(module._buffers.items()):
            if b is not None:
                module._buffers[name] = b.to(target)
    return model
