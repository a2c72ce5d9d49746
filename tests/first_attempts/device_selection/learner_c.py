"""Checks CUDA's and MPS's indices and the CPU's, and takes any meta index as the one meta device.

Written from: the kata page and the stub only.
Message: a name is only a request

Written by a learner (a data scientist who trains from
tutorials) as a first attempt, before any check, on 2026-11-27 after the contracts were cut
to what must hold; kept as written.
"""

from __future__ import annotations

import torch


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
    if torch.cuda.is_available() and i < torch.cuda.device_count():
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    """Every GPU this process can use, in order (`[cuda:0, ..., cuda:n-1]`), or `[cpu]` when
    there is none, so that the caller always has somewhere to run."""
    if not torch.cuda.is_available():
        return [torch.device("cpu")]
    gpus = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    return gpus if gpus else [torch.device("cpu")]


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
    n_gpus = 0
    if not disable_cuda and torch.cuda.is_available():
        n_gpus = torch.cuda.device_count()
    if requested is None:
        return torch.device("cuda", 0) if n_gpus > 0 else torch.device("cpu")
    device = _requested(requested)
    if device.type == "meta" or (device.type == "cpu" and device.index in (None, 0)):
        return device
    if device.type == "cuda":
        if n_gpus > 0 and (device.index is None or device.index < n_gpus):
            return device
    elif device.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available() and device.index in (None, 0):
            return device
    exists = ["cpu"] + [f"cuda:{i}" for i in range(n_gpus)]
    why = " (CUDA disabled)" if disable_cuda else ""
    raise ValueError(
        f"pick_device({requested!r}): {device} does not exist in this process{why}; "
        f"available: {', '.join(exists)}"
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
        raise ValueError(f"physical_gpu_id: CUDA_VISIBLE_DEVICES must be a str, not {visible!r}")
    ids: list[int] = []
    if visible.strip() != "":
        for entry in visible.split(","):
            e = entry.strip()
            if not e.isascii() or not e.isdigit():
                raise ValueError(
                    f"physical_gpu_id: CUDA_VISIBLE_DEVICES={visible!r}: entry {entry!r} "
                    "is not a GPU id written in digits"
                )
            gpu = int(e)
            if gpu in ids:
                raise ValueError(
                    f"physical_gpu_id: CUDA_VISIBLE_DEVICES={visible!r}: GPU {gpu} is listed twice"
                )
            ids.append(gpu)
    if logical >= len(ids):
        raise ValueError(
            f"physical_gpu_id: cuda:{logical} is not visible under "
            f"CUDA_VISIBLE_DEVICES={visible!r} ({len(ids)} GPU(s) visible)"
        )
    return ids[logical]
