"""Device selection: find the GPUs torch can see, pick one, and fall back to the CPU.

Device-agnostic code decides on a `torch.device` once, at the start, and passes it around. Read
docs/katas/device_selection.md, then fill in each function.

Check it:  python -m katas check device_selection
Stuck?     python -m katas hint device_selection
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import torch


def try_gpu(i: int = 0) -> torch.device:
    """Return `cuda:i` if at least `i + 1` CUDA devices exist, otherwise the CPU.

    Return a `torch.device`, never a string. A negative `i` raises ValueError.

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    # TODO(device_selection): ask torch how many CUDA devices there are.
    raise NotImplementedError("device_selection: try_gpu")


def try_all_gpus() -> list[torch.device]:
    """Return every CUDA device, `[cuda:0, ..., cuda:n-1]`, or `[cpu]` when there is none."""
    # TODO(device_selection): one torch.device per GPU, and never an empty list.
    raise NotImplementedError("device_selection: try_all_gpus")


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    """Turn a request (say, a `--device` flag) into a checked `torch.device`.

    - `None` means "the best there is": `cuda:0` when CUDA is available and not disabled (say,
      by a `--disable-cuda` flag), else the CPU.
    - An explicit request ("cpu", "cuda:1", a `torch.device`) is parsed and checked against this
      machine. Asking for CUDA when it is disabled or absent, or for an index at or beyond the
      device count, raises ValueError naming what was asked for and what exists.
    - A string torch cannot parse raises ValueError quoting it between quote marks (as
      `f"{text!r}"` does), never torch's RuntimeError.
    """
    # TODO(device_selection): parse, then check the type, `disable_cuda` and the index.
    raise NotImplementedError("device_selection: pick_device")


def physical_gpu_id(logical: int, visible: str | None) -> int:
    """Map the in-process GPU `cuda:logical` to its physical id under `CUDA_VISIBLE_DEVICES`.

    `visible` is the variable's value:
    - `None` (unset): every GPU is visible in order, so the answer is `logical`;
    - `"2,0"`: `cuda:0` is physical GPU 2 and `cuda:1` is physical GPU 0;
    - `""`: no GPU is visible.

    Spaces around entries are fine. Each entry, once stripped, must be digits only: `"+1"`,
    `"0x1"`, `"1 2"`, an empty entry and a GPU UUID are all refused (this kata handles integer
    ids only). A bad entry anywhere, a duplicate, a negative `logical`, or a `logical` index
    with no entry raises ValueError. (CUDA refuses none of them: it reads `1.5` as 1, stops at
    the first entry without a leading digit, and hides every GPU when an id repeats. We refuse
    instead.)
    """
    # TODO(device_selection): split, strip and check every entry, then index into them.
    raise NotImplementedError("device_selection: physical_gpu_id")
