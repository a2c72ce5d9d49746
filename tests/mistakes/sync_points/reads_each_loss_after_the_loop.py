"""Keeps the detached losses on the device, then reads them back one by one after the loop:
nothing waits inside the loop, but each `.item()` is its own transfer and its own wait, one per
step, where a single read of one stacked tensor would do.

Caught by: test_train_and_log_transfers_once_at_the_end, test_the_loop_never_waits_for_the_device
"""

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return [loss.item() for loss in losses]
