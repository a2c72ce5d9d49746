"""Finds each type's backend with `torch.get_device_module` and asks it, a `match` on the
device type, counts through `CUDA_VISIBLE_DEVICES` with a set and `str.isdecimal`, and
re-raises torch's own parse error with the text attached.
"""

from __future__ import annotations

import torch
from torch import device as Device


def _usable(kind: str) -> int:
    try:
        backend = torch.get_device_module(kind)
    except RuntimeError:  # no torch.<kind> module: nothing to ask, so nothing to use
        return 0
    if not backend.is_available():
        return 0
    return backend.device_count()


def try_gpu(i: int = 0) -> Device:
    if not isinstance(i, int) or isinstance(i, bool):
        raise TypeError(f"try_gpu({i!r}): expected an int")
    if i < 0:
        raise ValueError(f"try_gpu({i!r}): expected i >= 0")
    return Device("cuda", i) if i in range(_usable("cuda")) else Device("cpu")


def try_all_gpus() -> list[Device]:
    gpus = list(map(lambda k: Device("cuda", k), range(_usable("cuda"))))
    return gpus if gpus else [Device("cpu")]


def pick_device(requested=None, *, disable_cuda=False):
    cuda = 0 if disable_cuda else _usable("cuda")
    match requested:
        case None:
            return Device("cuda", 0) if cuda else Device("cpu")
        case Device():
            device = requested
        case str():
            try:
                device = Device(requested)
            except RuntimeError as err:
                raise ValueError(f"{requested!r}: {err}") from err
        case _:
            raise TypeError(f"pick_device: {type(requested).__name__} is not a device request")
    match device.type:
        case "cpu" | "meta":
            ok = device.index in (None, 0)
        case "cuda":
            ok = (device.index or 0) < cuda
        case other:
            ok = (device.index or 0) < _usable(other)
    if not ok:
        raise ValueError(
            f"pick_device({str(device)!r}): not on this machine, which has the cpu, meta and "
            f"{cuda} usable CUDA device(s)"
        )
    return device


def physical_gpu_id(logical: int, visible: str | None) -> int:
    if isinstance(logical, bool) or not isinstance(logical, int) or logical < 0:
        raise ValueError(f"physical_gpu_id: bad logical index {logical!r}")
    if visible is None:
        return logical
    seen: set[int] = set()
    order: list[int] = []
    for raw in visible.split(","):
        entry = raw.strip(" \t")
        if not (entry.isdecimal() and entry.isascii()):
            raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r}: {entry!r} is not a GPU id")
        if int(entry) in seen:
            raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r}: {entry} appears twice")
        seen.add(int(entry))
        order.append(int(entry))
    if logical < len(order):
        return order[logical]
    raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r} shows only {len(order)} GPU(s)")
