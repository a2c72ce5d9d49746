"""Sync points: log the training loss without making the host wait for the GPU every step.

The host only queues work for a GPU, and can run ahead of it, until it asks for a value that
lives on the GPU: then it waits for the GPU to catch up. The training loop most tutorials show
waits for the GPU at every step. This kata logs every loss, and waits once.
"""

from __future__ import annotations

# BEGIN SOLUTION
import math

# END SOLUTION
from collections.abc import Callable, Iterable

import torch
from torch import nn


def _model_device(model: nn.Module) -> torch.device:
    """The device of the model's parameters (given: an argument check, not the lesson)."""
    try:
        return next(model.parameters()).device
    except StopIteration:
        raise ValueError("train_and_log: the model has no parameters to train") from None


def _check_batch(i: int, x: object, y: object, device: torch.device) -> None:
    """Refuse a batch that is not on the model's device (given)."""
    for name, tensor in (("x", x), ("y", y)):
        if isinstance(tensor, torch.Tensor) and tensor.device != device:
            raise ValueError(
                f"train_and_log: batch {i} has {name} on {tensor.device}, but the model is "
                f"on {device}; move the data before the loop"
            )


def train_and_log(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
) -> list[float]:
    """Train for one pass over `batches`; return every step's loss as a Python float.

    The losses come back to the host in one transfer, after the last step: the host waits
    for the device once. Like the given loop's, the memory it holds grows by one number per
    step: the log's. A pass in which some step's loss is not finite (NaN or inf) raises
    ValueError naming the first such step; the model after such a pass is not promised.

    Written for you: the argument checks (bad batches are refused there), and a training loop
    as tutorials and many training scripts write it. It trains correctly, on each batch as it
    arrives and from fresh gradients, and it waits for the device at every step.
    """
    device = _model_device(model)
    # BEGIN SOLUTION: this loop waits for the device at every step; make it wait once
    losses: list[torch.Tensor] = []
    for i, (x, y) in enumerate(batches):
        _check_batch(i, x, y, device)
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().reshape(()))  # on the device, and holding no graph
    if not losses:
        return []
    logged = torch.stack(losses).tolist()  # the one transfer (on a GPU, the one wait)
    for i, value in enumerate(logged):
        if not math.isfinite(value):
            raise ValueError(f"train_and_log: the loss of step {i} is not finite ({value})")
    return logged
    # STUB
    # losses = []
    # for i, (x, y) in enumerate(batches):
    #     _check_batch(i, x, y, device)
    #     loss = loss_fn(model(x), y)
    #     if not torch.isfinite(loss):
    #         raise ValueError(f"train_and_log: the loss of step {i} is not finite ({loss.item()})")
    #     optimizer.zero_grad()
    #     loss.backward()
    #     optimizer.step()
    #     losses.append(loss.item())
    # return losses
    # END SOLUTION
