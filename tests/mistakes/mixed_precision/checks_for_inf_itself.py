"""Checks the gradients for inf and NaN itself and skips the step by hand: `if` on a tensor
reads it back to the host (on a GPU, a wait every step), and the scaler, never stepped, is
never told about the overflow.

Caught by: test_amp_step_reads_nothing_back, test_amp_step_skips_an_overflow
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if all(torch.isfinite(g).all() for g in grads):
        if max_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
