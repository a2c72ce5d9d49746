"""Model transfer: move a model with all its parameters and buffers, train it on its device, and
load a checkpoint saved on any device.

A model is more than its weights: buffers (BatchNorm's running statistics, say) travel with it,
an optimizer holds its Parameter objects, and a checkpoint remembers the device it was saved
on. Moving, training and loading must keep all of those in step.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO

import torch
from torch import nn


def _check_model(model: object, call: str) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"{call}: model must be an nn.Module, not {type(model).__name__}")


def _count(kind: str) -> int:
    """How many devices of the accelerator type `kind` this process can use (0: none)."""
    if kind in ("cpu", "meta"):
        return 1
    if kind == "cuda":
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == kind:
            return torch.accelerator.device_count()
    return 0


def _parse_device(device: object, call: str) -> torch.device:
    """`device` as a `torch.device` that exists in this process, or a clear error. The CPU comes
    back as plain `cpu`, whatever its name: some torch calls know `cpu` and not `cpu:0`."""
    if isinstance(device, torch.device):
        target = device
    elif isinstance(device, str):
        try:
            target = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{call}: {device!r} is not a device torch understands; try 'cpu' or 'cuda:0'"
            ) from None
    else:
        raise TypeError(
            f"{call}: device must be a str or a torch.device, not {type(device).__name__}"
        )
    index, n = target.index or 0, _count(target.type)
    if index >= n:
        raise ValueError(
            f"{call}: there is no {target.type}:{index} in this process, which has "
            f"{_listed(target.type, n)}; nothing was moved"
        )
    return torch.device("cpu") if target.type == "cpu" else target


def _listed(kind: str, n: int) -> str:
    """`n` devices of type `kind`, in words: "no mps device", "2 cuda devices (cuda:0, cuda:1)"."""
    if n == 0:
        return f"no {kind} device"
    names = ", ".join(f"{kind}:{k}" for k in range(n))
    return f"{n} {kind} device{'s' if n > 1 else ''} ({names})"


def model_device(model: nn.Module) -> torch.device:
    """The one device that holds all of `model`'s tensors. When no one device holds them all, it
    raises ValueError saying which tensors, by name, sit on which device.

    Bad arguments are refused by the given checks.
    """
    _check_model(model, "model_device(model)")
    # BEGIN SOLUTION: decide where the model is
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
    """Put all of `model`'s tensors on `device`, in place; return `model` itself. Whoever holds
    its parameters (an optimizer built before the move) still holds the model's own, wherever
    torch can move a Parameter and keep it (on `meta`, a device without data, it may not).

    The given checks refuse a device that does not exist here, before anything moves, and bad
    arguments: `target` is a device this process has.
    """
    call = f"move_model(model, {device!r})"
    _check_model(model, call)
    target = _parse_device(device, call)
    # BEGIN SOLUTION: move the model to target
    model.to(target)
    return model
    # END SOLUTION


def train_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
) -> float:
    """One optimisation step of `model` on this batch, on the model's device; return the batch's
    loss (before the step) as a Python float.

    A `loss_fn` that does not give a single number raises ValueError before any parameter
    changes. Bad arguments are refused by the given checks.
    """
    for name, value in (("inputs", inputs), ("targets", targets)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"train_step: {name} must be a tensor, not {type(value).__name__}")
    # BEGIN SOLUTION: make one step on the model's device
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
    """Load a state_dict saved on any device (a path, or a binary file) into `model`; return
    `model` itself, on `device`, holding the checkpoint's values, with its own Parameters as
    `move_model` keeps them (`meta` holds no values: there only the names and shapes load).

    A checkpoint that would run code while it is read is refused, with the error `torch.load`
    itself raises when it refuses such a file, and the model is left as it was. The given
    checks refuse a device that does not exist here, before the checkpoint is read, and bad
    arguments: `target` is a device this process has.
    """
    call = f"load_checkpoint({source!r}, model, {device!r})"
    _check_model(model, call)
    target = _parse_device(device, call)
    # BEGIN SOLUTION: the checkpoint's values in the model, the model on target
    state_dict = torch.load(source, map_location=target, weights_only=True)
    move_model(model, target)
    model.load_state_dict(state_dict)  # copies into the existing parameters and buffers
    return model
    # END SOLUTION
