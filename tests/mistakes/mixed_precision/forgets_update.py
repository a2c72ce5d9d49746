"""Never calls `scaler.update()`: the scale never changes (it stays high after an overflow,
so every later step overflows too), and the scaler refuses the next step.

Caught by: test_amp_step_updates_the_scale, test_amp_step_skips_an_overflow
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    optimizer.zero_grad()
    return loss.detach().float()
