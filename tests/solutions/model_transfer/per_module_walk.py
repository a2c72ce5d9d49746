"""Walks `model.modules()` and each module's own tensors (`recurse=False`) to find devices,
asks `torch.accelerator` whether a device exists, clears gradients with
`zero_grad(set_to_none=False)`, reads the loss with `float()`, and loads every storage onto the
CPU with a `map_location` function before copying the values into the moved model.
"""

from __future__ import annotations

import torch
from torch import nn


def _module(model):
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected an nn.Module, got {type(model).__name__}")
    return model


def _device(device) -> torch.device:
    if isinstance(device, str):
        try:
            device = torch.device(device)
        except RuntimeError:
            raise ValueError(f"{device!r} is not a device name") from None
    if not isinstance(device, torch.device):
        raise TypeError(f"a device is a str or a torch.device, not {type(device).__name__}")
    index = device.index or 0
    if device.type in ("cpu", "meta"):
        ok = index == 0
    else:
        current = torch.accelerator.current_accelerator(check_available=True)
        ok = (
            current is not None
            and current.type == device.type
            and index < torch.accelerator.device_count()
        )
    if not ok:
        raise ValueError(f"the device {device} does not exist here")
    return device


def model_device(model):
    _module(model)
    where: dict[str, list[str]] = {}
    for prefix, module in model.named_modules():
        own = [*module.named_parameters(recurse=False), *module.named_buffers(recurse=False)]
        for name, tensor in own:
            full = f"{prefix}.{name}" if prefix else name
            where.setdefault(str(tensor.device), []).append(full)
    if not where:
        raise ValueError("the model has no parameters or buffers, so no device")
    if len(where) > 1:
        raise ValueError(
            "the model is on several devices: "
            + "; ".join(f"{dev} holds {', '.join(names)}" for dev, names in where.items())
        )
    return torch.device(next(iter(where)))


def move_model(model, device):
    _module(model)
    return model.to(_device(device))


def train_step(model, optimizer, loss_fn, inputs, targets):
    if not (torch.is_tensor(inputs) and torch.is_tensor(targets)):
        raise TypeError("train_step: inputs and targets must be tensors")
    device = model_device(model)
    loss = loss_fn(model(inputs.to(device)), targets.to(device))
    if loss.numel() != 1:
        raise ValueError(f"train_step: the loss has shape {tuple(loss.shape)}, not one number")
    optimizer.zero_grad(set_to_none=False)
    loss.backward()
    optimizer.step()
    return float(loss)


def load_checkpoint(source, model, device):
    _module(model)
    device = _device(device)
    state = torch.load(source, map_location=lambda storage, location: storage, weights_only=True)
    model.to(device)
    model.load_state_dict(state)
    return model
