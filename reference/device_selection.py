"""Device selection: find the GPUs torch can see, pick one, and fall back to the CPU.

Device-agnostic code decides on a `torch.device` once, at the start, and passes it around.
"""

from __future__ import annotations

import re

import torch

# BEGIN SOLUTION
_ID = re.compile(r"[0-9]+")
# END SOLUTION


# BEGIN SOLUTION
def _gpu_count() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


# END SOLUTION


# BEGIN SOLUTION
def _existing(n: int) -> str:
    if n == 0:
        return "no CUDA device (only cpu)"
    return f"{n} CUDA device(s): " + ", ".join(f"cuda:{k}" for k in range(n))


# END SOLUTION


def try_gpu(i: int = 0) -> torch.device:
    """Return `cuda:i` if at least `i + 1` CUDA devices exist, otherwise the CPU.

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    # BEGIN SOLUTION
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"try_gpu(i={i!r}): i must be an int, not {type(i).__name__}")
    if i < 0:
        raise ValueError(f"try_gpu(i={i}): a GPU index cannot be negative")
    if _gpu_count() >= i + 1:
        return torch.device("cuda", i)
    return torch.device("cpu")
    # END SOLUTION


def try_all_gpus() -> list[torch.device]:
    """Return every CUDA device, `[cuda:0, ..., cuda:n-1]`, or `[cpu]` when there is none."""
    # BEGIN SOLUTION
    return [torch.device("cuda", k) for k in range(_gpu_count())] or [torch.device("cpu")]
    # END SOLUTION


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    """Turn a request (say, a `--device` flag) into a checked `torch.device`.

    `None` means "the best there is": `cuda:0` when CUDA is available and not disabled (say, by
    a `--disable-cuda` flag), else the CPU. An explicit request is parsed and checked against
    this machine; anything impossible raises ValueError naming what was asked and what exists,
    and a string torch cannot parse raises ValueError quoting it.
    """
    # BEGIN SOLUTION
    n = 0 if disable_cuda else _gpu_count()
    if requested is None:
        return torch.device("cuda", 0) if n else torch.device("cpu")

    if isinstance(requested, torch.device):
        device = requested
    elif isinstance(requested, str):
        try:
            device = torch.device(requested)
        except RuntimeError:
            raise ValueError(
                f"pick_device({requested!r}): not a device torch understands; "
                "try 'cpu', 'cuda' or 'cuda:1'"
            ) from None
    else:
        raise TypeError(
            f"pick_device({requested!r}): expected a str, a torch.device or None, "
            f"not {type(requested).__name__}"
        )

    if device.type == "cuda":
        if disable_cuda:
            raise ValueError(f"pick_device({requested!r}): CUDA is disabled; use 'cpu'")
        index = device.index or 0
        if index >= n:
            raise ValueError(
                f"pick_device({requested!r}): asked for cuda:{index}, "
                f"but this machine has {_existing(n)}"
            )
    return device
    # END SOLUTION


def physical_gpu_id(logical: int, visible: str | None) -> int:
    """Map the in-process GPU `cuda:logical` to its physical id under `CUDA_VISIBLE_DEVICES`.

    `visible` is the variable's value: `None` when unset (every GPU, in order), `""` for none,
    or ids such as `"2,0"` (then `cuda:0` is physical GPU 2). Each stripped entry must be digits
    only (`"+1"` and GPU UUIDs are refused). Unlike CUDA, which reads `1.5` as 1, stops at the
    first entry without a leading digit and hides every GPU when an id repeats, any malformed
    value, a duplicate or a negative `logical` raises ValueError.
    """
    # BEGIN SOLUTION
    if isinstance(logical, bool) or not isinstance(logical, int) or logical < 0:
        raise ValueError(f"physical_gpu_id: logical index {logical!r} must be an int >= 0")
    if visible is None:
        return logical
    if visible.strip() == "":
        raise ValueError(
            f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU; there is no cuda:{logical}"
        )
    ids: list[int] = []
    for entry in visible.split(","):
        entry = entry.strip()
        if not _ID.fullmatch(entry):
            raise ValueError(
                f"CUDA_VISIBLE_DEVICES={visible!r}: entry {entry!r} is not a non-negative GPU id"
            )
        if int(entry) in ids:
            raise ValueError(f"CUDA_VISIBLE_DEVICES={visible!r}: GPU {int(entry)} is listed twice")
        ids.append(int(entry))
    if logical >= len(ids):
        raise ValueError(
            f"CUDA_VISIBLE_DEVICES={visible!r} makes {len(ids)} GPU(s) visible; "
            f"there is no cuda:{logical}"
        )
    return ids[logical]
    # END SOLUTION
