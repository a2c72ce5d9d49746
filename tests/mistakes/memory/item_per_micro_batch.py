"""Adds up the loss with `.item()` after each micro-batch: on a GPU every `.item()` makes
the host wait for the device, once per micro-batch.

Caught by: test_accumulate_reads_back_once_after_the_last_micro_batch, test_accumulate_on_the_device
"""

from reference.memory import *


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1 or len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError("accumulate: bad batch")
    n = len(inputs)
    optimizer.zero_grad()
    total = 0.0
    for start in range(0, n, micro_batch):
        x, y = inputs[start : start + micro_batch], targets[start : start + micro_batch]
        loss = loss_fn(model(x), y) * (len(x) / n)
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
