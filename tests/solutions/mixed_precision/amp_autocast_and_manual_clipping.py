"""Uses `torch.amp.autocast` and `torch.amp.is_autocast_available`, asks
`torch.cuda.is_bf16_supported(including_emulation=False)` with the GPU made current for the
question (`with torch.cuda.device(...)`), clips by hand (the total norm and
one factor, computed on the device with no read-back), and clears the gradients by setting
them to None.
"""

from __future__ import annotations

import torch


def _checked(func, device):
    try:
        parsed = device if isinstance(device, torch.device) else torch.device(device)
    except RuntimeError:
        raise ValueError(f"{func}: cannot parse the device {device!r}") from None
    if parsed.type not in ("cpu", "cuda") or not torch.amp.is_autocast_available(parsed.type):
        raise ValueError(f"{func}: no mixed precision here for {str(device)!r}")
    if parsed.type == "cuda" and (
        not torch.cuda.is_available() or (parsed.index or 0) >= torch.cuda.device_count()
    ):
        raise ValueError(f"{func}: there is no GPU {str(device)!r} on this machine")
    return parsed


def autocast_dtype(device):
    parsed = _checked("autocast_dtype", device)
    if parsed.type == "cpu":
        return torch.bfloat16
    with torch.cuda.device(parsed):  # is_bf16_supported answers for the current GPU
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    return torch.bfloat16 if native else torch.float16


def make_scaler(device, dtype):
    kind = _checked("make_scaler", device).type
    return torch.amp.GradScaler(device=kind, enabled=dtype is torch.float16)


def amp_step(model, optimizer, scaler, loss_fn, x, y, *, dtype, max_norm=None):
    with torch.amp.autocast(x.device.type, dtype=dtype):
        output = model(x)
        loss = loss_fn(output, y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
        factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(factor)
    scaler.step(optimizer)
    scaler.update()
    for p in model.parameters():
        p.grad = None
    return loss.detach().to(torch.float32)
