"""Collects the devices in a set first and names the tensors only for the error, sets each
parameter's `.grad` to None by hand instead of `optimizer.zero_grad()`, returns
`loss.detach().cpu().item()`, and maps a checkpoint straight onto the device with a string
(`"cpu"` for any CPU spelling).
"""

from __future__ import annotations

import itertools

import torch
from torch import nn


def _tensors(model):
    return itertools.chain(model.named_parameters(), model.named_buffers())


def model_device(model: nn.Module) -> torch.device:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model_device: {type(model).__name__} is not an nn.Module")
    devices = {t.device for _, t in _tensors(model)}
    if len(devices) == 1:
        return devices.pop()
    if not devices:
        raise ValueError("model_device: nothing to look at (no parameters, no buffers)")
    lines = [f"{name} is on {t.device}" for name, t in _tensors(model)]
    raise ValueError("model_device: the model is split: " + ", ".join(lines))


def _exists(device: torch.device) -> bool:
    if device.type in {"cpu", "meta"}:
        return device.index in (None, 0)
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        return (device.index or 0) < count
    if device.type == "mps":
        return device.index in (None, 0) and torch.backends.mps.is_available()
    if device.type == "xpu":
        return torch.xpu.is_available() and (device.index or 0) < torch.xpu.device_count()
    return False


def _checked(device) -> torch.device:
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device: expected str or torch.device, got {type(device).__name__}")
    try:
        parsed = torch.device(device)
    except RuntimeError:
        raise ValueError(f"unknown device {device!r}") from None
    if not _exists(parsed):
        raise ValueError(f"{parsed} does not exist in this process")
    return parsed


def move_model(model: nn.Module, device) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"move_model: {type(model).__name__} is not an nn.Module")
    target = _checked(device)
    model.to(target)
    return model


def train_step(model, optimizer, loss_fn, inputs, targets) -> float:
    for what in (inputs, targets):
        if not isinstance(what, torch.Tensor):
            raise TypeError(f"train_step: got a {type(what).__name__} where a tensor belongs")
    here = model_device(model)
    prediction = model(inputs.to(here))
    loss = loss_fn(prediction, targets.to(here))
    if loss.dim() != 0 and loss.numel() != 1:
        raise ValueError(f"train_step: loss_fn gave {loss.numel()} numbers, not one")
    for p in model.parameters():
        p.grad = None
    loss.backward()
    optimizer.step()
    return loss.detach().cpu().item()


def load_checkpoint(source, model, device):
    if not isinstance(model, nn.Module):
        raise TypeError(f"load_checkpoint: {type(model).__name__} is not an nn.Module")
    target = _checked(device)
    location = "cpu" if target.type == "cpu" else str(target)
    state = torch.load(source, map_location=location, weights_only=True)
    move_model(model, target)
    model.load_state_dict(state, strict=True)
    return model
