"""Default device: build tensors and models straight on a device, or on `meta` with no memory at
all, and turn a `meta` model into a real one.

`with torch.device(d):` makes `d` the default device for the factory calls inside the block
(`torch.zeros`, `torch.empty`, `torch.tensor`, the `torch.empty` inside every `nn.Linear`) and
puts the old default back when the block ends, even on an exception. That replaces the
deprecated `torch.set_default_tensor_type(torch.cuda.FloatTensor)` of older tutorials.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs default_device

Check it:  python -m katas check default_device
Stuck?     python -m katas hint default_device   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn


def build_on(device: str | torch.device, factory: Callable[[], nn.Module]) -> nn.Module:
    """Call `factory()` with `device` as the default device, and return the model it builds.

    Every tensor the factory creates without naming a device is created on `device` directly:
    nothing is allocated on the CPU and copied over. On `meta` nothing is allocated at all, so
    even a 10⁵ × 10⁵ `nn.Linear` (40 GB of float32) is built in a moment.

    `with torch.device(device):` does it, and restores the caller's default device when the
    block ends, whether `factory` returns or raises. `torch.set_default_device` would change the
    default for the whole program; `torch.set_default_tensor_type` is deprecated and also
    changes the default dtype.
    """
    # TODO(default_device): write build_on; the docstring above is the contract.
    raise NotImplementedError("default_device: build_on")


def materialize(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Give a model built on `meta` real, initialised tensors on `device`; return `model` itself.

    1. `model.to_empty(device=device)` allocates every parameter and buffer on `device`,
       uninitialised (`.to()` refuses: a meta tensor has no data to copy).
    2. Each module that holds parameters or buffers of its own then runs its
       `reset_parameters()`, in `model.modules()` order, which is the order a normal build
       initialises them in. With the same seed, the result equals a model built on `device`.

    Buffers count: BatchNorm's `reset_parameters()` calls `reset_running_stats()`, which sets
    `running_mean` to 0, `running_var` to 1 and `num_batches_tracked` to 0.

    A tensor that is not on `meta` would lose its values: ValueError. So would a module that
    holds tensors but has no `reset_parameters()` to initialise them: ValueError, naming it.
    """
    # TODO(default_device): write materialize; the docstring above is the contract.
    raise NotImplementedError("default_device: materialize")


def creates_on(device: str | torch.device) -> dict[str, torch.device]:
    """Where four ways of making a tensor put it, inside `with torch.device(device):`.

    Returns `{"torch.zeros": ..., "torch.tensor": ..., "torch.from_numpy": ..., "nn.Linear":
    ...}`, each value the `torch.device` of what was made (for `nn.Linear`, of its weight).
    Factories follow the default device; `torch.from_numpy` shares the numpy array's memory,
    which is on the CPU, so it ignores the default device.
    """
    # TODO(default_device): write creates_on; the docstring above is the contract.
    raise NotImplementedError("default_device: creates_on")
