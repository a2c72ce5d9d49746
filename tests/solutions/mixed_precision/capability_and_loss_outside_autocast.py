"""Reads the GPU's generation from `get_device_properties`, keeps only the forward pass under
autocast (the loss is computed outside it, on the 16-bit output), always unscales (so the
scaler does not unscale again in `step`), clips the optimizer's own parameters with
`clip_grad_norm_(..., foreach=True)`, and zeroes the gradients in place (`set_to_none=False`).
"""

from __future__ import annotations

from torch import amp, bfloat16, cuda, float16, nn
from torch import device as Device


def _kind(func, device):
    try:
        parsed = Device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"{func}({device!r}): unknown device") from None
    if parsed.type == "cuda":
        count = cuda.device_count() if cuda.is_available() else 0
        if count == 0 or (parsed.index is not None and parsed.index >= count):
            raise ValueError(f"{func}({str(device)!r}): only {count} GPU(s) here")
    elif parsed.type != "cpu":
        raise ValueError(f"{func}({str(device)!r}): cpu or cuda only")
    return parsed


def autocast_dtype(device):
    parsed = _kind("autocast_dtype", device)
    if parsed.type == "cpu":
        return bfloat16
    return bfloat16 if cuda.get_device_properties(parsed).major >= 8 else float16


def make_scaler(device, dtype):
    parsed = _kind("make_scaler", device)
    return amp.GradScaler(str(parsed.type), enabled=(dtype == float16))


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with amp.autocast(device_type=x.device.type, dtype=dtype):
        out = model(x)
    loss = loss_fn(out, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    if max_norm is not None:
        params = [p for group in optimizer.param_groups for p in group["params"]]
        nn.utils.clip_grad_norm_(params, max_norm, foreach=True)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=False)
    return loss.float().detach()
