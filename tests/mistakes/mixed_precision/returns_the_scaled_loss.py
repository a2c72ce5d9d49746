"""Replaces the loss by the scaled loss and returns that: with float16 the logged loss is the
true one times the scale (65536 by default).

Caught by: test_amp_step_returns_the_loss_as_a_float32_tensor
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    loss = scaler.scale(loss)
    loss.backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
