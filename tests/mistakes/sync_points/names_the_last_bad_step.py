"""Moves the finite check after the one read, but names the last step whose loss is not finite:
once a loss is NaN, the weights it trained are NaN too, so every later loss is NaN as well, and
the step that went wrong is the first one.

Caught by: test_train_and_log_names_the_first_step_whose_loss_is_not_finite
"""

import math

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    device = _model_device(model)
    losses = []
    for i, (x, y) in enumerate(batches):
        _check_batch(i, x, y, device)
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    if not losses:
        return []
    logged = torch.stack(losses).tolist()
    bad = [i for i, value in enumerate(logged) if not math.isfinite(value)]
    if bad:
        raise ValueError(f"train_and_log: the loss of step {bad[-1]} is not finite")
    return logged
