"""Keeps the losses themselves and detaches only their stack at the end: every loss holds its
step's autograd graph, so the graphs of all the steps stay alive until the loop ends.

Caught by: test_train_and_log_keeps_no_graph_alive
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
        losses.append(loss)
    return torch.stack(losses).detach().tolist() if losses else []
