"""Opens autocast for "cuda" whatever the device: on tensors elsewhere it does nothing (on a
machine without CUDA it warns and disables itself), so everything runs in float32.

Caught by: test_amp_step_runs_the_products_in_dtype, test_amp_step_on_the_device
"""

import torch

from reference.mixed_precision import *


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.autocast("cuda", dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach().float()
