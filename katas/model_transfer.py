"""Model transfer: move a model with all its parameters and buffers, train it on its device, and
load a checkpoint saved on any device.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs model_transfer

Check it:  python -m katas check model_transfer
Stuck?     python -m katas hint model_transfer   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO

import torch
from torch import nn


def model_device(model: nn.Module) -> torch.device:
    """The one device that holds every parameter and buffer of `model`.

    A model spread across devices, or one with no tensors at all, has no such device: both
    raise ValueError (the first one says which names sit on which device).
    """
    # TODO(model_transfer): write model_device; the docstring above is the contract.
    raise NotImplementedError("model_transfer: model_device")


def move_model(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Move every parameter and buffer of `model` to `device`, in place; return `model` itself.

    `nn.Module.to` does exactly this, and keeps each Parameter object (it swaps in the moved
    data), so an optimizer built before the move still updates the model's parameters.
    """
    # TODO(model_transfer): write move_model; the docstring above is the contract.
    raise NotImplementedError("model_transfer: move_model")


def train_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
) -> float:
    """One optimisation step on one batch, on the model's device; return the loss as a float."""
    # TODO(model_transfer): write train_step; the docstring above is the contract.
    raise NotImplementedError("model_transfer: train_step")


def load_checkpoint(
    source: str | os.PathLike[str] | IO[bytes], model: nn.Module, device: str | torch.device
) -> nn.Module:
    """Load a state_dict saved on any device into `model`, and return `model` on `device`.

    `map_location` puts every tensor straight onto `device`, wherever it was saved;
    `weights_only=True` refuses a checkpoint that would run code while it is unpickled.
    """
    # TODO(model_transfer): write load_checkpoint; the docstring above is the contract.
    raise NotImplementedError("model_transfer: load_checkpoint")
