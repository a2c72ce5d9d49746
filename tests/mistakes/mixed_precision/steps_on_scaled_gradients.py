"""Scales the loss but steps the optimizer itself: it steps on gradients multiplied by the
scale (65536 by default), and on inf gradients too, since nothing checks them.

Caught by: test_amp_step_steps_on_the_true_gradients, test_amp_step_skips_an_overflow
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach().float()
