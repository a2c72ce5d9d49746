"""Device selection: find the devices this process can use, pick one, and fall back to the CPU.

A device name is only a request: `"cuda:3"` is a fine name on a laptop. Device-agnostic code
asks the machine once, at the start, turns the answer into a `torch.device` and passes it
around, so that a typo or a missing GPU is a clear error at start-up, not a crash an hour into
training.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs device_selection

Check it:  python -m katas check device_selection
Stuck?     python -m katas hint device_selection   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import torch


def try_gpu(i: int = 0) -> torch.device:
    """The GPU `cuda:i` when this process can use it, otherwise the CPU.

    A negative `i` raises ValueError; an `i` that is not an int raises TypeError.

    >>> try_gpu(0)   # on a laptop without a GPU
    device(type='cpu')
    """
    # TODO(device_selection): write try_gpu; the docstring above is the contract.
    raise NotImplementedError("device_selection: try_gpu")


def try_all_gpus() -> list[torch.device]:
    """Every GPU this process can use, in order (`[cuda:0, ..., cuda:n-1]`), or `[cpu]` when
    there is none, so that the caller always has somewhere to run."""
    # TODO(device_selection): write try_all_gpus; the docstring above is the contract.
    raise NotImplementedError("device_selection: try_all_gpus")


def pick_device(
    requested: str | torch.device | None = None, *, disable_cuda: bool = False
) -> torch.device:
    """Turn a request (say, a `--device` flag) into a `torch.device` that exists here.

    `None` asks for the best there is: `cuda:0` when this process can use a GPU and
    `disable_cuda` (say, a `--disable-cuda` flag) is false, else the CPU.

    A request (a string or a `torch.device`) comes back as that `torch.device` (a bare `cuda`
    may come back as `cuda:0`) when it exists:
    - `cpu` and `meta`, with no index or index 0, exist on every machine;
    - an accelerator (`cuda`, `mps`, `xpu`, ...) exists when its backend is available in this
      process and the index is below its device count (no index means the current one);
      with `disable_cuda`, no `cuda` device exists.

    A request that does not exist raises ValueError naming the request and what exists; a
    string torch cannot parse raises ValueError quoting it; a request of any other type raises
    TypeError.
    """
    # TODO(device_selection): write pick_device; the docstring above is the contract.
    raise NotImplementedError("device_selection: pick_device")


def physical_gpu_id(logical: int, visible: str | None) -> int:
    """The physical id of the in-process GPU `cuda:logical` under `CUDA_VISIBLE_DEVICES`.

    `visible` is the variable's value: `None` when it is unset (every GPU, in order), or
    comma-separated physical ids such as `"2,0"` (then `cuda:0` is physical GPU 2), where an
    entry is digits with optional spaces around them. A value that is empty, holds any other
    entry (`"1.5"`, `"+1"`, a GPU UUID) or lists an id twice, a `logical` beyond the GPUs it
    makes visible, and a negative `logical` all raise ValueError.
    """
    # TODO(device_selection): write physical_gpu_id; the docstring above is the contract.
    raise NotImplementedError("device_selection: physical_gpu_id")
