"""Adds up the micro-batch losses, graphs and all, and calls backward() once at the end: the
gradients are right, but every micro-batch's activations stay alive until then, so the
peak memory is the whole batch's.

Caught by: test_accumulate_keeps_one_micro_batch_alive, test_accumulate_on_the_device
"""

from reference.memory import *


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1 or len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError("accumulate: bad batch")
    n = len(inputs)
    optimizer.zero_grad()
    total = 0
    for start in range(0, n, micro_batch):
        x, y = inputs[start : start + micro_batch], targets[start : start + micro_batch]
        total = total + loss_fn(model(x), y) * (len(x) / n)
    total.backward()
    optimizer.step()
    return total.item()
