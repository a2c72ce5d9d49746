"""Model transfer: move a model with all its parameters and buffers, train it on its device, and
load a checkpoint saved on any device.

A model is more than its weights: buffers (BatchNorm's running statistics, say) travel with it,
an optimizer holds its Parameter objects, and a checkpoint remembers the device it was saved
on. Moving, training and loading must keep all of those in step.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs model_transfer

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

    A model spread across devices raises ValueError saying which tensors (by name) sit on which
    device; a model without parameters and buffers raises ValueError; anything but an
    `nn.Module` raises TypeError.
    """
    # TODO(model_transfer): write model_device; the docstring above is the contract.
    raise NotImplementedError("model_transfer: model_device")


def move_model(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Put every parameter and buffer of `model` on `device`, in place; return `model` itself.

    Each parameter stays the same `nn.Parameter` object, with its `requires_grad`, so an
    optimizer built before the move still updates the model.

    `device` must exist in this process: `cpu` and `meta` with no index or index 0, or an
    accelerator (`cuda`, `mps`, ...) whose backend is available here, with an index below its
    device count. One that does not exist raises ValueError naming it, before anything moves; a
    string torch cannot parse raises ValueError quoting it; anything but a str or a
    `torch.device` raises TypeError, and so does a `model` that is not an `nn.Module`.
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
    """One optimisation step of `model` on one batch; return the batch's loss (before the step)
    as a Python float.

    The step runs on the model's device, wherever the batch comes from, and follows this
    batch's gradients only, whatever the parameters' `.grad` held before. A `loss_fn` that does
    not return a single number raises ValueError before any parameter changes; `inputs` or
    `targets` that are not tensors raise TypeError.
    """
    # TODO(model_transfer): write train_step; the docstring above is the contract.
    raise NotImplementedError("model_transfer: train_step")


def load_checkpoint(
    source: str | os.PathLike[str] | IO[bytes], model: nn.Module, device: str | torch.device
) -> nn.Module:
    """Load a state_dict saved on any device (a path, or a binary file) into `model`; return
    `model` itself, with every parameter and buffer on `device` and the checkpoint's values.

    The model keeps its Parameter objects. A checkpoint that would run code while it is read is
    refused with `pickle.UnpicklingError`, and the model is left as it was. `device` is checked
    as `move_model` checks it, before the checkpoint is read.
    """
    # TODO(model_transfer): write load_checkpoint; the docstring above is the contract.
    raise NotImplementedError("model_transfer: load_checkpoint")
