"""Reads all the batches into a list before training: a DataLoader's whole dataset in memory,
and no step can start until the last batch has been loaded.

Caught by: test_the_loop_never_waits_for_the_device
"""

import torch

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    losses = []
    for x, y in list(batches):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).tolist() if losses else []
