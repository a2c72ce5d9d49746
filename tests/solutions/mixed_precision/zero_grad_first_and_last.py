"""Clears the gradients both before and after the step, compares the GPU's compute capability
as a tuple, makes the scaler with keyword arguments and its default growth settings
spelled out, and keeps the returned loss from a float32 copy taken before backward.
"""

from __future__ import annotations

import torch

NATIVE_BF16 = (8, 0)  # Ampere and newer compute in bfloat16; older GPUs only emulate it


def autocast_dtype(device):
    try:
        parsed = torch.device(device)
    except RuntimeError as err:
        raise ValueError(f"autocast_dtype: {device!r} is not a device ({err})") from None
    if parsed.type == "cpu":
        return torch.bfloat16
    if parsed.type != "cuda":
        raise ValueError(f"autocast_dtype: cannot autocast on {str(device)!r} in this kata")
    if not torch.cuda.is_available() or (parsed.index or 0) >= torch.cuda.device_count():
        raise ValueError(f"autocast_dtype: this machine has no {str(device)!r}")
    native = torch.cuda.get_device_capability(parsed) >= NATIVE_BF16  # no index: the current
    return torch.bfloat16 if native else torch.float16


def make_scaler(device, dtype):
    autocast_dtype(device)  # the same refusals
    return torch.amp.GradScaler(
        device=torch.device(device).type,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=dtype == torch.float16,
    )


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=True):
        loss = loss_fn(model(x), y)
    logged = loss.detach().to(dtype=torch.float32)
    scaled = scaler.scale(loss)
    scaled.backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return logged
