"""Device selection: find the devices this process can use, pick one, and fall back to the CPU.

Device-agnostic code asks the machine once, at the start, where to run, turns the answer into a
`torch.device` and passes it around, so that a typo or a missing GPU is a clear error at
start-up, not a crash an hour into training.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs device_selection

Check it:  python -m katas check device_selection
Stuck?     python -m katas hint device_selection   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
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
    # TODO(device_selection): decide whether this process can use cuda:i
    raise NotImplementedError("device_selection: try_gpu")


def try_all_gpus() -> list[torch.device]:
    """Every GPU this process can use, in order (`[cuda:0, ..., cuda:n-1]`), or `[cpu]` when
    there is none, so that the caller always has somewhere to run. Nothing is put on any GPU."""
    # TODO(device_selection): write try_all_gpus; the docstring above is the contract.
    raise NotImplementedError("device_selection: try_all_gpus")


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
        # TODO(device_selection): decide which device is the best this process can use
        raise NotImplementedError("device_selection: pick_device")
    device = _requested(requested)
    # TODO(device_selection): decide whether `device` exists in this process, and answer
    raise NotImplementedError("device_selection: pick_device")


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
    # TODO(device_selection): read `visible` as CUDA does, refusing what CUDA would misread
    raise NotImplementedError("device_selection: physical_gpu_id")
