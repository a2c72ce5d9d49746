"""Clips the gradients right after the scaled backward, while they are still multiplied by the
scale: with a scale of 256, they are clipped to max_norm / 256 in true units, and the step is
far too small (a disabled scaler, for bfloat16, hides the mistake).

Caught by: test_amp_step_clips_in_true_units
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
