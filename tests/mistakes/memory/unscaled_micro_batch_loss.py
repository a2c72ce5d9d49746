"""Calls backward() on each micro-batch's mean loss as it is: backward() adds to .grad, so
the step sees the sum of k micro-batch gradients, about k times the whole batch's.

Caught by: test_accumulate_equals_one_step_on_the_whole_batch, test_accumulate_on_the_device
"""

import torch

from reference.memory import *


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1 or len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError("accumulate: bad batch")
    optimizer.zero_grad()
    losses = []
    for x, y in zip(inputs.split(micro_batch), targets.split(micro_batch), strict=True):
        loss = loss_fn(model(x), y)
        loss.backward()
        losses.append(loss.detach() * len(x))
    optimizer.step()
    return (torch.stack(losses).sum() / len(inputs)).item()
