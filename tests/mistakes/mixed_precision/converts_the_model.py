"""Converts the model to `dtype` (`model.to(dtype)`) instead of using autocast: the
parameters, their gradients and the optimizer's state become 16-bit, and small updates round
away. For float16 the scaler even refuses to unscale 16-bit gradients.

Caught by: test_amp_step_never_converts_the_model
"""

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    model.to(dtype)
    loss = loss_fn(model(x.to(dtype)), y.to(dtype))
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
