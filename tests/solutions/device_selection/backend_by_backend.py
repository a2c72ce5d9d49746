"""Asks each backend by name (`torch.backends.mps`, `torch.xpu`, `torch.cuda`) and refuses
any other type; checks a request's index before its type; parses `CUDA_VISIBLE_DEVICES` with
one regular expression over the whole value.
"""

from __future__ import annotations

import re

import torch

VISIBLE = re.compile(r"[ \t]*[0-9]+[ \t]*(,[ \t]*[0-9]+[ \t]*)*")


def _cuda_count() -> int:
    if not torch.cuda.is_available():
        return 0
    return torch.cuda.device_count()


def try_gpu(i=0):
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError("try_gpu: the index must be an int, not " + type(i).__name__)
    if i < 0:
        raise ValueError("try_gpu: the index must be >= 0, got " + str(i))
    if _cuda_count() > i:
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus():
    devices = []
    for k in range(_cuda_count()):
        devices.append(torch.device("cuda", k))
    if not devices:
        devices.append(torch.device("cpu"))
    return devices


def _count(kind: str, disable_cuda: bool) -> int:
    if kind in ("cpu", "meta"):
        return 1
    if kind == "cuda":
        return 0 if disable_cuda else _cuda_count()
    if kind == "mps":
        return 1 if torch.backends.mps.is_available() else 0
    if kind == "xpu":
        return torch.xpu.device_count() if torch.xpu.is_available() else 0
    return 0  # a backend this program does not know how to ask about


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    if requested is None:
        if not disable_cuda and _cuda_count():
            return torch.device("cuda", 0)
        return torch.device("cpu")
    if not isinstance(requested, (str, torch.device)):
        raise TypeError(f"pick_device: a request is a str or a torch.device, not {requested!r}")
    try:
        device = torch.device(requested)
    except RuntimeError:
        raise ValueError(f"pick_device: cannot parse {requested!r} as a device") from None
    index = device.index if device.index is not None else 0
    count = _count(device.type, disable_cuda)
    if index >= count:
        cuda = "disabled" if disable_cuda else f"{_cuda_count()} GPU(s)"
        raise ValueError(
            f"pick_device: {device.type}:{index} does not exist (CUDA: {cuda}; "
            f"{device.type}: {count} device(s))"
        )
    return device


def physical_gpu_id(logical, visible):
    if type(logical) is not int or logical < 0:
        raise ValueError(f"logical must be a non-negative int, not {logical!r}")
    if visible is None:
        return logical
    if not VISIBLE.fullmatch(visible):
        raise ValueError(f"malformed CUDA_VISIBLE_DEVICES {visible!r}")
    ids = [int(part) for part in visible.split(",")]
    if len(ids) != len(set(ids)):
        raise ValueError(f"CUDA_VISIBLE_DEVICES {visible!r} lists a GPU twice")
    try:
        return ids[logical]
    except IndexError:
        raise ValueError(f"cuda:{logical} is not visible under {visible!r}") from None
