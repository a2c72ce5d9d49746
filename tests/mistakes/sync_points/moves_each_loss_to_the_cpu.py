"""Moves each detached loss to the CPU as it is made (`.to("cpu")`), then stacks them: one
device-to-host copy, and one wait, per step.

Caught by: test_train_and_log_transfers_once_at_the_end, test_the_loop_never_waits_for_the_device
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
        losses.append(loss.detach().to("cpu"))
    return torch.stack(losses).tolist() if losses else []
