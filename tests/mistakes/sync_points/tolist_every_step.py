"""Keeps each loss as a one-element list, `loss.detach().reshape(1).tolist()`: a transfer (and
a wait) hidden in every step.

Caught by: test_train_and_log_transfers_once_at_the_end, test_the_loop_never_waits_for_the_device
"""

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    losses = []
    for x, y in batches:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses += loss.detach().reshape(1).tolist()
    return losses
