"""Clips before unscaling, but to `max_norm` times the scale, which it reads with
`scaler.get_scale()`: right in numbers, but `get_scale()` reads the scale back to the host, so
on a GPU the step waits for the device.

Caught by: test_amp_step_reads_nothing_back
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scale = scaler.get_scale() if scaler.is_enabled() else 1.0
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm * scale)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
