"""Device selection: find the GPUs torch can see, pick one, and fall back to the CPU.

Device-agnostic code decides on a `torch.device` once, at the start, and passes it around.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs device_selection

Check it:  python -m katas check device_selection
Stuck?     python -m katas hint device_selection   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import re

import torch


def try_gpu(i: int = 0) -> torch.device:
    """Return `cuda:i` if at least `i + 1` CUDA devices exist, otherwise the CPU.

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    # TODO(device_selection): write try_gpu; the docstring above is the contract.
    raise NotImplementedError("device_selection: try_gpu")


def try_all_gpus() -> list[torch.device]:
    """Return every CUDA device, `[cuda:0, ..., cuda:n-1]`, or `[cpu]` when there is none."""
    # TODO(device_selection): write try_all_gpus; the docstring above is the contract.
    raise NotImplementedError("device_selection: try_all_gpus")


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    """Turn a request (say, a `--device` flag) into a checked `torch.device`.

    `None` means "the best there is": `cuda:0` when CUDA is available and not disabled (say, by
    a `--disable-cuda` flag), else the CPU. An explicit request is parsed and checked against
    this machine; anything impossible raises ValueError naming what was asked and what exists,
    and a string torch cannot parse raises ValueError quoting it.
    """
    # TODO(device_selection): write pick_device; the docstring above is the contract.
    raise NotImplementedError("device_selection: pick_device")


def physical_gpu_id(logical: int, visible: str | None) -> int:
    """Map the in-process GPU `cuda:logical` to its physical id under `CUDA_VISIBLE_DEVICES`.

    `visible` is the variable's value: `None` when unset (every GPU, in order), `""` for none,
    or ids such as `"2,0"` (then `cuda:0` is physical GPU 2). Each stripped entry must be digits
    only (`"+1"` and GPU UUIDs are refused). Unlike CUDA, which reads `1.5` as 1, stops at the
    first entry without a leading digit and hides every GPU when an id repeats, any malformed
    value, a duplicate or a negative `logical` raises ValueError.
    """
    # TODO(device_selection): write physical_gpu_id; the docstring above is the contract.
    raise NotImplementedError("device_selection: physical_gpu_id")
