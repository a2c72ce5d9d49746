"""Sync points: log the training loss without stopping the GPU every step.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs sync_points

Check it:  python -m katas check sync_points
Stuck?     python -m katas hint sync_points   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import nn


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
    # TODO(sync_points): write train_and_log; the docstring above is the contract.
    raise NotImplementedError("sync_points: train_and_log")
