"""Checks each accelerator through torch.accelerator, and takes any cpu or meta index as the one device.

Written from: the kata page and the stub only.
Message: a name is only a request

Written by a learner (a data scientist who trains from
tutorials) as a first attempt, before any check, on 2026-11-27 after the contracts were cut
to what must hold; kept as written.
"""

from __future__ import annotations

import re

import torch


def _cuda_count() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _requested(requested: object) -> torch.device:
    """`requested` (a str or a `torch.device`) as a `torch.device`: a ValueError quoting a string
    torch cannot parse, a TypeError for anything else. Whether the device exists is not asked."""
    if isinstance(requested, torch.device):
        return requested
    if not isinstance(requested, str):
        raise TypeError(
            f"pick_device({requested!r}): expected a str, a torch.device or None, "
            f"not {type(requested).__name__}"
        )
    try:
        return torch.device(requested)
    except RuntimeError:
        raise ValueError(
            f"pick_device({requested!r}): not a device torch understands; "
            "try 'cpu', 'cuda' or 'cuda:1'"
        ) from None


def try_gpu(i: int = 0) -> torch.device:
    """The GPU `cuda:i` when this process can use it, otherwise the CPU.

    Bad arguments are refused by the given checks.

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"try_gpu(i={i!r}): i must be an int, not {type(i).__name__}")
    if i < 0:
        raise ValueError(f"try_gpu(i={i}): a GPU index cannot be negative")
    if i < _cuda_count():
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    """Every GPU this process can use, in order (`[cuda:0, ..., cuda:n-1]`), or `[cpu]` when
    there is none, so that the caller always has somewhere to run."""
    n = _cuda_count()
    if n == 0:
        return [torch.device("cpu")]
    return [torch.device("cuda", i) for i in range(n)]


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    """Turn a request (say, a `--device` flag) into a `torch.device` that exists here.

    `None` asks for the best there is: `cuda:0` when this process can use a GPU, else the CPU.
    `disable_cuda` (say, a `--disable-cuda` flag) makes this process treat CUDA as absent.

    A request comes back as that `torch.device` when this process has that device, and
    otherwise raises ValueError naming the request and saying what exists here. Bad arguments
    (a string torch cannot parse, anything that is not a request) are refused by the given
    checks.
    """
    if requested is None:
        if not disable_cuda and _cuda_count() > 0:
            return torch.device("cuda", 0)
        return torch.device("cpu")
    device = _requested(requested)
    if device.type in ("cpu", "meta"):
        return device
    if device.type == "cuda":
        n = 0 if disable_cuda else _cuda_count()
    else:
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == device.type:
            n = torch.accelerator.device_count()
        else:
            n = 0
    if (device.index or 0) < n:
        return device
    if device.type == "cuda" and disable_cuda:
        why = "CUDA is disabled (disable_cuda=True)"
    else:
        why = f"this process has {n} {device.type} device(s)" + (
            f", numbered 0 to {n - 1}" if n else ""
        )
    have = ["cpu"] + [f"cuda:{i}" for i in range(0 if disable_cuda else _cuda_count())]
    raise ValueError(
        f"pick_device({requested!r}): there is no {str(device)!r} here; {why}. "
        f"Available: {', '.join(have)}"
    )


def physical_gpu_id(logical: int, visible: str | None) -> int:
    """The physical id of the in-process GPU `cuda:logical` under `CUDA_VISIBLE_DEVICES`.

    `visible` is the variable's value: `None` when it is unset (every GPU, in order), else a
    comma-separated list of distinct GPU ids written in digits, whitespace around an entry
    allowed (with `"2,0"`, `cuda:0` is physical GPU 2). Any other value, and a `logical` that
    the value does not make visible, raise ValueError: refuse what CUDA could misread, never
    guess. Bad arguments, and the answer when the variable is unset, are given.
    """
    if isinstance(logical, bool) or not isinstance(logical, int) or logical < 0:
        raise ValueError(f"physical_gpu_id: logical index {logical!r} must be an int >= 0")
    if visible is None:
        return logical
    if not isinstance(visible, str):
        raise ValueError(f"physical_gpu_id: CUDA_VISIBLE_DEVICES must be a str or None, not {visible!r}")
    ids = []
    for entry in visible.split(","):
        entry = entry.strip()
        if not re.fullmatch(r"[0-9]+", entry):
            raise ValueError(
                f"physical_gpu_id: CUDA_VISIBLE_DEVICES={visible!r}: {entry!r} is not a GPU id "
                "(expected a comma-separated list of non-negative integers)"
            )
        gpu = int(entry)
        if gpu in ids:
            raise ValueError(
                f"physical_gpu_id: CUDA_VISIBLE_DEVICES={visible!r}: GPU {gpu} is listed twice"
            )
        ids.append(gpu)
    if logical >= len(ids):
        raise ValueError(
            f"physical_gpu_id: cuda:{logical} is not visible under CUDA_VISIBLE_DEVICES="
            f"{visible!r}, which makes {len(ids)} GPU(s) visible"
        )
    return ids[logical]
