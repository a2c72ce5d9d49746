"""Calls `torch.stack(losses)` even when there were no batches, and `torch.stack([])` raises
"stack expects a non-empty TensorList".

Caught by: test_train_and_log_of_no_batches_is_an_empty_list
"""

import torch

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    losses = []
    for x, y in batches:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).tolist()
