"""Finds the device with `torch.get_device_module`, moves a model with `model.to(device=...)`
and checks the result, steps with `model.zero_grad()`, and loads a checkpoint by copying each
tensor into the model's own under `torch.no_grad()` instead of `load_state_dict`.
"""

from __future__ import annotations

import torch
from torch import nn


def _need_module(model, who):
    if not isinstance(model, nn.Module):
        raise TypeError(f"{who}: model must be an nn.Module, not {type(model).__name__}")


def _target(device, who):
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"{who}: device must be a str or torch.device, not {type(device)}")
    try:
        target = torch.device(device)
    except RuntimeError:
        raise ValueError(f"{who}: torch cannot read the device {device!r}") from None
    if target.type in ("cpu", "meta"):
        available = 1
    else:
        try:
            backend = torch.get_device_module(target.type)
            available = backend.device_count() if backend.is_available() else 0
        except RuntimeError:
            available = 0
    if (target.index or 0) >= available:
        raise ValueError(f"{who}: {target} is not here ({available} {target.type} device(s))")
    return target


def model_device(model):
    _need_module(model, "model_device")
    named = list(model.named_parameters()) + list(model.named_buffers())
    if not named:
        raise ValueError("model_device: the model holds no tensors")
    first = named[0][1].device
    strays = [f"{name} ({t.device})" for name, t in named if t.device != first]
    if strays:
        home = [name for name, t in named if t.device == first]
        raise ValueError(
            f"model_device: {', '.join(home)} on {first}, but {', '.join(strays)} elsewhere"
        )
    return first


def move_model(model, device):
    _need_module(model, "move_model")
    target = _target(device, "move_model")
    moved = model.to(device=target)
    assert moved is model
    return model


def train_step(model, optimizer, loss_fn, inputs, targets):
    if not isinstance(inputs, torch.Tensor) or not isinstance(targets, torch.Tensor):
        raise TypeError("train_step: inputs and targets must both be tensors")
    device = model_device(model)
    inputs = inputs.to(device, non_blocking=False)
    targets = targets.to(device)
    loss = loss_fn(model(inputs), targets)
    if loss.numel() > 1 or loss.numel() == 0:
        raise ValueError(f"train_step: expected a single loss, got shape {tuple(loss.shape)}")
    model.zero_grad()
    loss.backward()
    optimizer.step()
    value = loss.item()
    return value


def load_checkpoint(source, model, device):
    _need_module(model, "load_checkpoint")
    target = _target(device, "load_checkpoint")
    state = torch.load(source, map_location=torch.device("cpu"), weights_only=True)
    own = model.state_dict(keep_vars=True)
    missing = sorted(set(own) ^ set(state))
    if missing:
        raise RuntimeError(f"load_checkpoint: keys do not match: {missing}")
    model.to(target)
    own = model.state_dict(keep_vars=True)
    with torch.no_grad():
        for key, value in state.items():
            own[key].copy_(value)
    return model
