"""Clears the gradients after `step()` instead of before `backward()`: the first step uses
whatever an earlier `backward()` left in `.grad`.

Caught by: test_train_and_log_clears_gradients_every_step, test_train_and_log_matches_a_plain_loop
"""

import torch

from reference.sync_points import *


def train_and_log(model, batches, optimizer, loss_fn):
    losses = []
    for x, y in batches:
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.detach())
    return torch.stack(losses).tolist() if losses else []
