"""Sync points: log the training loss without making the host wait for the GPU every step.

The host only queues work for a GPU, and can run ahead of it, until it asks for a value that
lives on the GPU: then it waits for the GPU to catch up. A training loop that reads its loss
every step waits every step. This kata logs every loss, and waits once.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs sync_points

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
    """Train for one pass over `batches`; return every step's loss as a Python float.

    The loop never waits for the device: nothing is read back to the host until the last step
    is done, and then once (no batches: `[]`, and nothing read at all). Each step trains on
    its batch as it arrives, from fresh gradients, and the log keeps no step's autograd graph
    alive. A batch on another device than the model raises ValueError naming both devices.
    """
    # TODO(sync_points): write train_and_log; the docstring above is the contract.
    raise NotImplementedError("sync_points: train_and_log")
