"""Sync points: log the training loss without stopping the GPU every step."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import nn


# BEGIN SOLUTION
def _model_device(model: nn.Module) -> torch.device:
    try:
        return next(model.parameters()).device
    except StopIteration:
        raise ValueError("train_and_log: the model has no parameters to train") from None


# END SOLUTION


def train_and_log(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
) -> list[float]:
    """One pass over `batches`; the losses stay on the device until a single transfer at the
    end, which returns them as Python floats (`[]` for no batches, with no transfer).

    Nothing in the loop reads a value on the host, so on a GPU the host can queue the next
    steps while the GPU works. Comparing devices and shapes reads only metadata: no wait.
    """
    # BEGIN SOLUTION
    device = _model_device(model)
    losses: list[torch.Tensor] = []
    for i, (x, y) in enumerate(batches):
        for name, tensor in (("x", x), ("y", y)):
            if isinstance(tensor, torch.Tensor) and tensor.device != device:
                raise ValueError(
                    f"train_and_log: batch {i} has {name} on {tensor.device}, but the model is "
                    f"on {device}; move the data before the loop"
                )
        loss = loss_fn(model(x), y)
        if loss.numel() != 1:
            raise ValueError(
                f"train_and_log: loss_fn returned shape {tuple(loss.shape)} at batch {i}; "
                "expected a single number"
            )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().reshape(()))  # on the device, and holding no graph
    if not losses:
        return []
    return torch.stack(losses).tolist()  # the one transfer (on a GPU, the one wait)
    # END SOLUTION
