"""Walks the batch with a `match` statement, asks the accelerator's own module
(`torch.cuda`, `torch.xpu`, ...) for its device count, and passes the device to `Tensor.to` as
a keyword argument with `copy=False` spelled out.
"""

from __future__ import annotations

import torch
from torch.utils.data import DataLoader


def _target(device, caller):
    match device:
        case torch.device():
            return device
        case str():
            try:
                return torch.device(device)
            except RuntimeError:
                raise ValueError(f"{caller}: torch does not know the device {device!r}") from None
        case _:
            raise TypeError(f"{caller}: a device is a str or torch.device, not {device!r}")


def _pinnable(target):
    return target.type != "cpu" and target.type != "meta"


def loader_kwargs(device, *, num_workers=1):
    target = _target(device, "loader_kwargs")
    match num_workers:
        case bool() | float():
            raise TypeError(f"loader_kwargs: num_workers={num_workers!r}")
        case int() if num_workers < 0:
            raise ValueError(f"loader_kwargs: num_workers={num_workers} is negative")
        case int():
            pass
        case _:
            raise TypeError(f"loader_kwargs: num_workers={num_workers!r}")
    return {"num_workers": num_workers, "pin_memory": True} if _pinnable(target) else {}


def make_loader(dataset, batch_size, device, *, shuffle=True):
    kwargs = {"batch_size": batch_size, "shuffle": shuffle}
    kwargs.update(loader_kwargs(device))
    return DataLoader(dataset, **kwargs)


def _exists(target):
    if not _pinnable(target):
        return True
    module = getattr(torch, target.type, None)
    if module is None or not hasattr(module, "device_count") or not module.is_available():
        return False
    return (target.index if target.index is not None else 0) < module.device_count()


def _move(value, target, pinnable):
    match value:
        case torch.Tensor():
            return value.to(device=target, non_blocking=pinnable and value.is_pinned(), copy=False)
        case dict():
            return {key: _move(item, target, pinnable) for key, item in value.items()}
        case tuple() if hasattr(value, "_fields"):
            return value._make(_move(item, target, pinnable) for item in value)
        case tuple():
            return tuple(_move(item, target, pinnable) for item in value)
        case list():
            return [_move(item, target, pinnable) for item in value]
        case _:
            return value


def to_device(batch, device):
    target = _target(device, "to_device")
    if not _exists(target):
        raise ValueError(f"to_device: this machine has no {str(target)!r}")
    return _move(batch, target, _pinnable(target))
