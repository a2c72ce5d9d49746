"""Model transfer: move a model with all its parameters and buffers, train it on its device, and
load a checkpoint saved on any device.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO

import torch
from torch import nn


# BEGIN SOLUTION
def _check_model(model: object, call: str) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"{call}: model must be an nn.Module, not {type(model).__name__}")


# END SOLUTION


# BEGIN SOLUTION
def _parse_device(device: object, call: str) -> torch.device:
    if isinstance(device, torch.device):
        return device
    if isinstance(device, str):
        try:
            return torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{call}: {device!r} is not a device torch understands; try 'cpu' or 'cuda:0'"
            ) from None
    raise TypeError(f"{call}: device must be a str or a torch.device, not {type(device).__name__}")


# END SOLUTION


def model_device(model: nn.Module) -> torch.device:
    """The one device that holds every parameter and buffer of `model`.

    A model spread across devices, or one with no tensors at all, has no such device: both
    raise ValueError (the first one says which names sit on which device).
    """
    # BEGIN SOLUTION
    _check_model(model, "model_device(model)")
    names_on: dict[torch.device, list[str]] = {}
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        names_on.setdefault(tensor.device, []).append(name)
    if not names_on:
        raise ValueError(
            f"model_device({type(model).__name__}): the model has no parameters and no buffers, "
            "so it lives on no device; give the device explicitly"
        )
    if len(names_on) > 1:
        listing = "; ".join(f"{device}: {', '.join(names)}" for device, names in names_on.items())
        raise ValueError(
            f"model_device({type(model).__name__}): the model is spread across "
            f"{len(names_on)} devices ({listing}); move it to one with move_model(model, device)"
        )
    return next(iter(names_on))
    # END SOLUTION


def move_model(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Move every parameter and buffer of `model` to `device`, in place; return `model` itself.

    `nn.Module.to` does exactly this, and keeps each Parameter object (it swaps in the moved
    data), so an optimizer built before the move still updates the model's parameters.
    """
    # BEGIN SOLUTION
    call = f"move_model(model, {device!r})"
    _check_model(model, call)
    model.to(_parse_device(device, call))
    return model
    # END SOLUTION


def train_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
) -> float:
    """One optimisation step on one batch, on the model's device; return the loss as a float."""
    # BEGIN SOLUTION
    for name, value in (("inputs", inputs), ("targets", targets)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"train_step: {name} must be a tensor, not {type(value).__name__}")
    device = model_device(model)
    inputs, targets = inputs.to(device), targets.to(device)
    loss = loss_fn(model(inputs), targets)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise ValueError(
            f"train_step: loss_fn returned {shape}; expected a single number "
            "(a loss with reduction='mean' or 'sum')"
        )
    optimizer.zero_grad()  # gradients add up across backward() calls: start from nothing
    loss.backward()
    optimizer.step()
    return loss.item()  # a Python float (on a GPU, this waits for the step to finish)
    # END SOLUTION


def load_checkpoint(
    source: str | os.PathLike[str] | IO[bytes], model: nn.Module, device: str | torch.device
) -> nn.Module:
    """Load a state_dict saved on any device into `model`, and return `model` on `device`.

    `map_location` puts every tensor straight onto `device`, wherever it was saved;
    `weights_only=True` refuses a checkpoint that would run code while it is unpickled.
    """
    # BEGIN SOLUTION
    call = f"load_checkpoint({source!r}, model, {device!r})"
    _check_model(model, call)
    target = _parse_device(device, call)
    # map_location understands "cpu" but not "cpu:0" (it compares the text): normalise it.
    map_location = torch.device("cpu") if target.type == "cpu" else target
    state_dict = torch.load(source, map_location=map_location, weights_only=True)
    move_model(model, target)
    model.load_state_dict(state_dict)  # copies into the existing parameters and buffers
    return model
    # END SOLUTION
