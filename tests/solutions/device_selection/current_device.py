"""Resolves a bare `cuda` to the current GPU with `torch.cuda.current_device()`, and checks an
index by asking the GPU for its properties; another accelerator is asked of `torch.accelerator`.
"""

from __future__ import annotations

import torch

from reference.device_selection import physical_gpu_id


def _gpus(disable_cuda: bool = False) -> int:
    return 0 if disable_cuda or not torch.cuda.is_available() else torch.cuda.device_count()


def try_gpu(i: int = 0) -> torch.device:
    if type(i) is not int:
        raise TypeError(f"try_gpu: i must be an int, got {i!r}")
    if i < 0:
        raise ValueError(f"try_gpu: negative GPU index {i}")
    return torch.device("cuda", i) if i < _gpus() else torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    return [torch.device("cuda", k) for k in range(_gpus())] or [torch.device("cpu")]


def pick_device(requested=None, *, disable_cuda: bool = False) -> torch.device:
    gpus = _gpus(disable_cuda)
    if requested is None:
        return torch.device("cuda", 0) if gpus else torch.device("cpu")
    if not isinstance(requested, (str, torch.device)):
        raise TypeError(f"pick_device: {requested!r} is not a device name")
    try:
        device = torch.device(requested)
    except RuntimeError:
        raise ValueError(f"pick_device: {requested!r} is not a device") from None
    where = f"{gpus} usable CUDA GPU(s), plus cpu and meta"
    if device.type in ("cpu", "meta"):
        if device.index not in (None, 0):
            raise ValueError(f"pick_device: there is no {device}; there are {where}")
        return device
    if device.type != "cuda":  # another accelerator (mps, xpu...): the one torch reports
        found = torch.accelerator.is_available() and torch.accelerator.current_accelerator()
        if not found or found.type != device.type:
            raise ValueError(f"pick_device: {device} is not available; there are {where}")
        if (device.index or 0) >= torch.accelerator.device_count():
            raise ValueError(f"pick_device: there is no {device}; there are {where}")
        return device
    if not gpus:
        raise ValueError(f"pick_device: {device} is not available; there are {where}")
    index = torch.cuda.current_device() if device.index is None else device.index
    try:
        torch.cuda.get_device_properties(index)
    except AssertionError:  # "Invalid device id"
        raise ValueError(f"pick_device: there is no cuda:{index}; there are {where}") from None
    return torch.device("cuda", index)
