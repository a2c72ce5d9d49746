"""Unscales through the scaler (so clipping is right) but then calls `optimizer.step()` itself:
after an overflow it steps on inf and NaN gradients, which the scaler would have skipped.

Caught by: test_amp_step_skips_an_overflow
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
