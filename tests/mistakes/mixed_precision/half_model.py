"""Runs the forward pass on `model.half()` and converts it back afterwards: the products are
16-bit, but so were the parameters while they ran, and for bfloat16 the products are float16.

Caught by: test_amp_step_never_converts_the_model, test_amp_step_runs_the_products_in_dtype
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    model.half()
    out = model(x.half())
    model.float()
    loss = loss_fn(out.float(), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
