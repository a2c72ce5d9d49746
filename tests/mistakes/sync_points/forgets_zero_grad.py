"""Never clears the gradients, so `backward()` adds each step's gradients to all the earlier
ones and every step after the first goes the wrong way.

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
        losses.append(loss.detach())
    return torch.stack(losses).tolist() if losses else []
