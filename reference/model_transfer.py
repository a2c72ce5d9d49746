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
    """`device` as a `torch.device` that exists in this process, or a clear error."""
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
    return target


def _listed(kind: str, n: int) -> str:
    """`n` devices of type `kind`, in words: "no mps device", "2 cuda devices (cuda:0, cuda:1)"."""
    if n == 0:
        return f"no {kind} device"
    names = ", ".join(f"{kind}:{k}" for k in range(n))
    return f"{n} {kind} device{'s' if n > 1 else ''} ({names})"


def model_device(model: nn.Module) -> torch.device:
    """The one device that holds every parameter and buffer of `model`.

    A model spread across devices raises ValueError saying which tensors (by name) sit on which
    device; a model without parameters and buffers raises ValueError; anything but an
    `nn.Module` raises TypeError (that check is written for you).
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
    """Put every parameter and buffer of `model` on `device`, in place; return `model` itself.

    Each parameter stays the same `nn.Parameter` object, with its `requires_grad`, so an
    optimizer built before the move still updates the model. (`meta`, which holds no data, is
    the one place torch cannot do that by assigning `param.data`: there `Module.to` makes new
    Parameters, unless `torch.__future__.set_swap_module_params_on_conversion(True)` is in
    effect, and then it swaps each Parameter's contents in place. So on `meta` the same objects
    are asked for only with that setting on.)

    `device` must exist in this process: `cpu` and `meta` with no index or index 0, or an
    accelerator (`cuda`, `mps`, ...) whose backend is available here, with an index below its
    device count. One that does not exist raises ValueError naming it, before anything moves; a
    string torch cannot parse raises ValueError quoting it; anything but a str or a
    `torch.device` raises TypeError, and so does a `model` that is not an `nn.Module`. (These
    checks are written for you: `target` is a device that exists.)
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
    """One optimisation step of `model` on one batch; return the batch's loss (before the step)
    as a Python float.

    The step runs on the model's device, wherever the batch comes from, and follows this
    batch's gradients only, whatever the parameters' `.grad` held before. A `loss_fn` that does
    not return a single number raises ValueError before any parameter changes; `inputs` or
    `targets` that are not tensors raise TypeError (that check is written for you).
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
    `model` itself, with every parameter and buffer on `device` and the checkpoint's values.

    The model keeps its Parameter objects (on `meta`, as `move_model` says; `meta` holds no
    values, so there only the checkpoint's names and shapes are loaded). A checkpoint that
    would run code while it is read is refused with `pickle.UnpicklingError`, and the model is
    left as it was. `device` is checked as `move_model` checks it, before the checkpoint is
    read. (These checks are written for you: `target` is a device that exists.)
    """
    call = f"load_checkpoint({source!r}, model, {device!r})"
    _check_model(model, call)
    target = _parse_device(device, call)
    # BEGIN SOLUTION: load the checkpoint into the model, on target
    # map_location understands "cpu" but not "cpu:0" (it compares the text): normalise it.
    map_location = torch.device("cpu") if target.type == "cpu" else target
    state_dict = torch.load(source, map_location=map_location, weights_only=True)
    move_model(model, target)
    model.load_state_dict(state_dict)  # copies into the existing parameters and buffers
    return model
    # END SOLUTION
