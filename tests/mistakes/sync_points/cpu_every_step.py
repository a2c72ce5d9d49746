"""Copies each step's loss to the CPU with `.cpu()` after the optimizer step, then reads the
copies after the loop: the copy itself is the transfer, so the host waits every step.

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
        losses.append(loss.detach().cpu())
    return [float(loss) for loss in losses]
