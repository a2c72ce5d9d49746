"""Copies each detached loss to the host with `non_blocking=True` as it is made, waits once
for the GPU after the loop, then reads the copies: no wait per step, but one transfer per
step where the log needs one (and the wait is what makes the copies readable at all).

Caught by: test_train_and_log_transfers_once_at_the_end
"""

import math

import torch

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    device = next(model.parameters()).device
    copies = []
    for x, y in batches:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        copies.append(loss.detach().to("cpu", non_blocking=True))
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    logged = [float(c) for c in copies]
    for i, value in enumerate(logged):
        if not math.isfinite(value):
            raise ValueError(f"train_and_log: the loss of step {i} is not finite ({value})")
    return logged
