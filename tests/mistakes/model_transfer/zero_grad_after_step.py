"""Calls `zero_grad()` after `step()` instead of before `backward()`: a training loop that only
ever calls this function gets away with it, but gradients left by any earlier `backward()`
leak into the first step.

Caught by: test_train_step_ignores_stale_gradients
"""

from reference.model_transfer import *


def train_step(model, optimizer, loss_fn, inputs, targets):
    device = model_device(model)
    loss = loss_fn(model(inputs.to(device)), targets.to(device))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
