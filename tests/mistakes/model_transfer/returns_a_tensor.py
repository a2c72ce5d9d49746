"""Returns the loss tensor instead of `loss.item()`: a tensor that still holds the step's
autograd graph (and, on a GPU, lives on the GPU).

Caught by: test_train_step_is_one_sgd_step
"""

from reference.model_transfer import *


def train_step(model, optimizer, loss_fn, inputs, targets):
    device = model_device(model)
    loss = loss_fn(model(inputs.to(device)), targets.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
