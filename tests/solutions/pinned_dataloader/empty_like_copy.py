"""Moves each tensor by allocating its twin on the device with `torch.empty_like(t, device=...)`
and filling it with `copy_(t, non_blocking=...)`, instead of `Tensor.to`; names a missing device
by its repr, `device(type='cuda', index=3)`.
"""

from __future__ import annotations

from reference.pinned_dataloader import *
from reference.pinned_dataloader import _as_device, _is_accelerator


def _copy_to(t: torch.Tensor, target: torch.device, accelerator: bool) -> torch.Tensor:
    if t.device == target or (target.type == "cpu" and t.device.type == "cpu"):
        return t
    twin = torch.empty_like(t, device=target)
    return twin.copy_(t, non_blocking=accelerator and t.is_pinned())


def _walk(value, target, accelerator):
    if isinstance(value, torch.Tensor):
        return _copy_to(value, target, accelerator)
    if isinstance(value, dict):
        moved = {k: _walk(v, target, accelerator) for k, v in value.items()}
        if type(value) is dict:
            return moved
        clone = value.copy()
        clone.update(moved)
        return clone
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_walk(v, target, accelerator) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_walk(v, target, accelerator) for v in value)
    return value


def _check_exists(target: torch.device) -> None:
    if not _is_accelerator(target):
        return
    accelerator = torch.accelerator.current_accelerator()
    n = torch.accelerator.device_count() if accelerator == torch.device(target.type) else 0
    if (target.index or 0) >= n:
        raise ValueError(f"to_device: no {target!r} here ({n} {target.type} device(s))")


def to_device(batch, device):
    func = f"to_device(..., {device!r})"
    target = _as_device(device, func)
    _check_exists(target)
    return _walk(batch, target, _is_accelerator(target))
