"""Clears the gradients before the forward pass, as most loops do, and not after the step: the
gradients are left in `.grad` (after an overflow, infs) for whoever comes next.

Caught by: test_amp_step_clears_the_gradients, test_amp_step_skips_an_overflow
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    optimizer.zero_grad()
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
