"""Device selection: find the devices this process can use, pick one, and fall back to the CPU.

Device-agnostic code asks the machine once, at the start, where to run, turns the answer into a
`torch.device` and passes it around, so that a typo or a missing GPU is a clear error at
start-up, not a crash an hour into training.
"""

from __future__ import annotations

import torch

# BEGIN SOLUTION
_EVERYWHERE = ("cpu", "meta")  # devices every machine has, as index 0 (or no index)


def _gpu_count() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _count(kind: str, disable_cuda: bool) -> int:
    """How many devices of the accelerator type `kind` this process can use (0: none)."""
    if kind == "cuda":
        return 0 if disable_cuda else _gpu_count()
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == kind:
            return torch.accelerator.device_count()
    return 0


def _existing(disable_cuda: bool) -> str:
    """What exists here, in words: "cpu, meta and 2 cuda device(s) (cuda:0, cuda:1)"."""
    kinds = ["cuda"]
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type not in kinds:
            kinds.append(accelerator.type)
    found = []
    for kind in kinds:
        n = _count(kind, disable_cuda)
        if n:
            found.append(
                f"{n} {kind} device(s) (" + ", ".join(f"{kind}:{k}" for k in range(n)) + ")"
            )
    gpus = " and " + " and ".join(found) if found else ", and no accelerator"
    disabled = " (CUDA is disabled)" if disable_cuda else ""
    return f"this process has cpu, meta{gpus}{disabled}"


# END SOLUTION


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
    """The GPU `cuda:i` when this process can use it, otherwise the CPU. It finds out without
    putting anything on any GPU.

    Bad arguments are refused by the given checks.

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"try_gpu(i={i!r}): i must be an int, not {type(i).__name__}")
    if i < 0:
        raise ValueError(f"try_gpu(i={i}): a GPU index cannot be negative")
    # BEGIN SOLUTION: decide whether this process can use cuda:i
    if _gpu_count() >= i + 1:
        return torch.device("cuda", i)
    return torch.device("cpu")
    # END SOLUTION


def try_all_gpus() -> list[torch.device]:
    """Every GPU this process can use, in order (`[cuda:0, ..., cuda:n-1]`), or `[cpu]` when
    there is none, so that the caller always has somewhere to run. Nothing is put on any GPU."""
    # BEGIN SOLUTION
    return [torch.device("cuda", k) for k in range(_gpu_count())] or [torch.device("cpu")]
    # END SOLUTION


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
        # BEGIN SOLUTION: decide which device is the best this process can use
        return torch.device("cuda", 0) if _count("cuda", disable_cuda) else torch.device("cpu")
        # END SOLUTION
    device = _requested(requested)
    # BEGIN SOLUTION: decide whether `device` exists in this process, and answer
    index = device.index or 0
    limit = 1 if device.type in _EVERYWHERE else _count(device.type, disable_cuda)
    if index >= limit:
        raise ValueError(
            f"pick_device({requested!r}): asked for {device.type}:{index}, "
            f"but {_existing(disable_cuda)}"
        )
    return device
    # END SOLUTION


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
    # BEGIN SOLUTION: read `visible` as CUDA does, refusing what CUDA would misread
    if visible.strip() == "":
        raise ValueError(
            f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU; there is no cuda:{logical}"
        )
    ids: list[int] = []
    for entry in visible.split(","):
        entry = entry.strip()
        if not (entry.isascii() and entry.isdigit()):  # 0-9 only: not "+1" or "1.5"
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
