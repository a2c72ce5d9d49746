"""Sync points: keep the training log on the device, and read it once at the end.

A GPU runs behind Python: each call only queues work. Reading a value back to the host
(`loss.item()`, `float(loss)`, `print(loss)`, `.tolist()`, `.cpu()`) makes Python wait until the
GPU has caught up, so a loop that reads its loss every step stops the queue every step. Read
docs/katas/sync_points.md, then fill in the function.

Check it:  python -m katas check sync_points
Stuck?     python -m katas hint sync_points
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
    """Train `model` for one pass over `batches` and return the loss of every step, as floats.

    For each `(x, y)` in `batches`, in order: `loss = loss_fn(model(x), y)`, then
    `optimizer.zero_grad()`, `loss.backward()` and `optimizer.step()`.

    - `batches` is any iterable, such as a generator or a DataLoader: go over it once, and
      train on each batch as it arrives (do not read them all first).
    - Every tensor of a batch must already be on the model's device (the device of its
      parameters): raise ValueError naming the batch's position and both devices otherwise.
      Moving data belongs before the loop (or in a DataLoader with pinned memory), not here.
    - Keep each step's loss on the device, cut from its autograd graph (`loss.detach()`):
      a loss kept as it is holds on to the step's whole graph.
    - Move the losses to the host once, after the last step, in a single transfer (for
      example `torch.stack(losses).tolist()`), and return them as a list of Python floats,
      one per batch. No `.item()`, `float()`, `.tolist()`, `.cpu()`, `.numpy()` or `print`
      of a loss inside the loop: each one waits for the GPU.
    - No batches: return `[]`, with no transfer at all (`torch.stack([])` raises).
    """
    # TODO(sync_points): train on each batch, keep the detached losses on the device, and
    # bring them to the host once at the end.
    raise NotImplementedError("sync_points: train_and_log")
