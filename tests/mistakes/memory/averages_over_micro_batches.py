"""Divides each micro-batch's loss by the number of micro-batches: right only when every
micro-batch has the same rows; a smaller last micro-batch then weighs as much as a full one.

Caught by: test_accumulate_equals_one_step_on_the_whole_batch
"""

import math

from reference.memory import *


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1 or len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError("accumulate: bad batch")
    k = math.ceil(len(inputs) / micro_batch)
    optimizer.zero_grad()
    total = 0.0
    for start in range(0, len(inputs), micro_batch):
        x, y = inputs[start : start + micro_batch], targets[start : start + micro_batch]
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total = total + loss.detach()
    optimizer.step()
    return total.item()
