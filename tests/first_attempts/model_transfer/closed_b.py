"""Loads the checkpoint with torch.load as the blitz does, then moves the model: too late for a
GPU checkpoint on a CPU host.

Written from: the kata page and the stub only.
Message: remembers the GPU it was saved on

Written by a learner (a student after the 60-minute blitz only, who writes an attempt with the
torch the blitz teaches and the names the page shows, and lets the checker answer) as a first
attempt, before any check, on 2026-11-27; kept as written.
"""

from __future__ import annotations

import math
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
    # state_dict() has both the parameters and the buffers (BatchNorm's running stats)
    places: dict[torch.device, list[str]] = {}
    for name, tensor in model.state_dict().items():
        places.setdefault(tensor.device, []).append(name)
    if len(places) == 1:
        return next(iter(places))
    if not places:
        # not sure what a model without tensors should say
        raise ValueError("model_device(model): the model holds no tensors, so it has no device")
    where = "; ".join(f"{dev}: {', '.join(names)}" for dev, names in places.items())
    raise ValueError(f"model_device(model): the model's tensors sit on several devices: {where}")


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
    # net.to(device) from the blitz: moves parameters and buffers in place, returns the model
    model.to(target)
    return model


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
    device = model_device(model)
    inputs = inputs.to(device)
    targets = targets.to(device)
    optimizer.zero_grad()  # otherwise .grad would add up the previous batch's gradient
    outputs = model(inputs)
    loss = loss_fn(outputs, targets)
    if not isinstance(loss, torch.Tensor) or math.prod(loss.shape) != 1:
        raise ValueError(
            f"train_step: loss_fn must give a single number, got "
            f"{tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__}"
        )
    loss.backward()
    optimizer.step()
    return loss.item()


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
    # weights_only=True (as in the blitz) refuses a pickle that would run code; read it first so
    # a refused file leaves the model as it was.
    # Unsure: a checkpoint saved on a GPU may come back on that GPU; I don't know how to tell
    # torch.load to put it elsewhere, so I rely on load_state_dict copying into the model's own
    # tensors, wherever they are.
    state = torch.load(source, weights_only=True)
    model.load_state_dict(state)
    return move_model(model, target)
