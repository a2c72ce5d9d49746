"""Steps with the right gradients but returns the last micro-batch's mean loss, not the whole
batch's: with micro-batches the two differ.

Caught by: test_accumulate_equals_one_step_on_the_whole_batch
"""

from reference.memory import *


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1 or len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError("accumulate: bad batch")
    n = len(inputs)
    optimizer.zero_grad()
    for start in range(0, n, micro_batch):
        x, y = inputs[start : start + micro_batch], targets[start : start + micro_batch]
        loss = loss_fn(model(x), y)
        (loss * (len(x) / n)).backward()
    optimizer.step()
    return loss.item()
