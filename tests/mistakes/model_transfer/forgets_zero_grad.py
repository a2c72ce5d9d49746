"""Never calls `zero_grad()`, so `backward()` adds each batch's gradients to all the earlier
ones and every step after the first is wrong.

Caught by: test_train_step_twice_uses_fresh_gradients, test_train_step_ignores_stale_gradients
"""

from reference.model_transfer import *


def train_step(model, optimizer, loss_fn, inputs, targets):
    device = model_device(model)
    loss = loss_fn(model(inputs.to(device)), targets.to(device))
    loss.backward()
    optimizer.step()
    return loss.item()
