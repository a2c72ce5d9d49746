"""With `max_norm`, unscales and clips, then calls `optimizer.step()` itself, since the
gradients are already in true units: but the scaler's step is what skips a step whose
gradients overflowed, so an overflowing step is applied and the parameters become inf or NaN.

Caught by: test_amp_step_skips_an_overflow
"""

import torch
from torch import nn

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
    else:
        scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach().float()
