"""Never checks what `loss_fn` returned, so a loss with reduction='none' reaches `backward()`,
which raises torch's RuntimeError ("grad can be implicitly created only for scalar outputs").

Caught by: test_train_step_refuses_a_loss_that_is_not_one_number
"""

from reference.model_transfer import *


def train_step(model, optimizer, loss_fn, inputs, targets):
    device = model_device(model)
    loss = loss_fn(model(inputs.to(device)), targets.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
