"""Turns the list of detached losses into one tensor with `torch.tensor(losses)`. On a list of
tensors, torch.tensor reads every element with `float()` (tensor_new.cpp builds the result on
the CPU, element by element): one transfer per loss, all at the end.

Caught by: test_train_and_log_transfers_once_at_the_end
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
    return torch.tensor(losses).tolist() if losses else []
