"""Asks `torch.accelerator` about every device type, CUDA included, instead of `torch.cuda`,
and checks a request by looking up how many devices of its type exist.
"""

from __future__ import annotations

import re

import torch


def _devices(kind: str) -> int:
    """How many `kind` devices this process can use."""
    if kind in ("cpu", "meta"):
        return 1
    if not torch.accelerator.is_available():
        return 0
    current = torch.accelerator.current_accelerator()
    return torch.accelerator.device_count() if current and current.type == kind else 0


def try_gpu(i: int = 0) -> torch.device:
    if type(i) is not int:
        raise TypeError(f"try_gpu: i must be an int, got {i!r}")
    if i < 0:
        raise ValueError(f"try_gpu: negative GPU index {i}")
    return torch.device(f"cuda:{i}") if i < _devices("cuda") else torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    n = _devices("cuda")
    if n == 0:
        return [torch.device("cpu")]
    return [torch.device(f"cuda:{k}") for k in range(n)]


def pick_device(requested=None, *, disable_cuda: bool = False) -> torch.device:
    gpus = 0 if disable_cuda else _devices("cuda")
    if requested is None:
        return torch.device("cuda:0") if gpus > 0 else torch.device("cpu")
    if isinstance(requested, str):
        try:
            device = torch.device(requested)
        except RuntimeError as err:
            raise ValueError(f"unknown device {requested!r} ({err})") from None
    elif isinstance(requested, torch.device):
        device = requested
    else:
        raise TypeError(f"pick_device wants a str or a torch.device, got {type(requested)}")
    available = gpus if device.type == "cuda" else _devices(device.type)
    wanted = 0 if device.index is None else device.index
    if wanted >= available:
        raise ValueError(
            f"no device {device.type}:{wanted} here: there are {available} {device.type} "
            f"device(s), and {gpus} usable CUDA GPU(s)"
        )
    return device


def physical_gpu_id(logical: int, visible: str | None) -> int:
    if not isinstance(logical, int) or logical < 0:
        raise ValueError(f"bad logical GPU index {logical!r}")
    if visible is None:
        return logical
    ids = [int(e) for e in re.findall(r"[^,]+", visible) if re.fullmatch(r"\s*[0-9]+\s*", e)]
    entries = visible.split(",")
    if not visible.strip() or len(ids) != len(entries):
        raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r} is not a list of GPU ids")
    if len(set(ids)) != len(ids):
        raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r} repeats a GPU id")
    if logical >= len(ids):
        raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r} has no entry {logical}")
    return ids[logical]
