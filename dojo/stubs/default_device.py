"""Default device: build tensors and models straight on a device, or on `meta` with no memory at
all, and turn a `meta` model into a real one.

Older tutorials call `torch.set_default_tensor_type(torch.cuda.FloatTensor)`, which is
deprecated. Today `with torch.device("cuda"):` makes a device the default for the factory calls
inside the block, and `torch.set_default_device` does it for the whole program. Read
docs/katas/default_device.md, then fill in each function.

Check it:  python -m katas check default_device
Stuck?     python -m katas hint default_device
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np  # noqa: F401  (you will need it)
import torch
from torch import nn


def build_on(device: str | torch.device, factory: Callable[[], nn.Module]) -> nn.Module:
    """Call `factory()` with `device` as the default device, and return the model it builds.

    `factory` takes no arguments and returns an `nn.Module`, say `lambda: nn.Linear(4, 2)`.
    Every tensor it creates without naming a device must be created on `device` directly:
    nothing allocated on the CPU first and then copied with `.to(device)`. On `meta` (tensors
    with a shape and a dtype but no data) that means nothing is allocated at all, so even
    `nn.Linear(10**5, 10**5)`, 40 GB of float32, is built in a moment.

    Afterwards the default device and the default dtype must be what they were before, whether
    `factory` returned or raised (let its exception through). A device string torch does not
    understand raises ValueError naming it.

    >>> build_on("meta", lambda: nn.Linear(10**5, 10**5)).weight.device
    device(type='meta')
    """
    # TODO(default_device): make `device` the default only while factory() runs.
    raise NotImplementedError("default_device: build_on")


def materialize(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Give a model built on `meta` real, initialised tensors on `device`; return `model` itself.

    `model.to(device)` cannot do it: a meta tensor has no data to copy. Instead:

    1. `model.to_empty(device=device)` allocates every parameter and buffer on `device`,
       without initialising them: they hold whatever was in that memory.
    2. Then every module that holds parameters or buffers of its own (`recurse=False`) runs its
       `reset_parameters()`, in `model.modules()` order: the order a normal build initialises
       them in. With the same seed, the result then equals the model built on `device`.

    Buffers count: BatchNorm's running statistics are buffers, and a BatchNorm with
    `affine=False` has buffers but no parameters.

    Raise ValueError and change nothing when `device` is `meta` (no data there either), when
    some parameter or buffer is not on `meta` (name it: to_empty would throw its values away),
    or when a module holds tensors but has no `reset_parameters()` to initialise them (name its
    class).
    """
    # TODO(default_device): check the model, to_empty, then reset each module that holds tensors.
    raise NotImplementedError("default_device: materialize")


def creates_on(device: str | torch.device) -> dict[str, torch.device]:
    """Find out where four ways of making a tensor put it, inside `with torch.device(device):`.

    Return a dict with exactly these keys, each mapped to the `torch.device` of what it made
    (for `nn.Linear`, of its weight):

        {"torch.zeros": ..., "torch.tensor": ..., "torch.from_numpy": ..., "nn.Linear": ...}

    Make a small tensor with each one (`torch.zeros(2)`, `torch.tensor([1.0, 2.0])`,
    `torch.from_numpy(np.zeros(2))`, `nn.Linear(2, 2)`) and report where it landed. Leave the
    default device as you found it.
    """
    # TODO(default_device): make one tensor with each inside `with torch.device(device):`.
    raise NotImplementedError("default_device: creates_on")
