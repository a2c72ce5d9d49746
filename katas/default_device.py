"""Default device: build tensors and models straight on a device, or on `meta` with no memory at
all, and turn a `meta` model into a real one.

Building a model on the CPU and then moving it allocates every tensor twice and copies it
across; a big enough model never fits in RAM at all. PyTorch can make a device the default for
the tensors a piece of code creates, so a model is born where it will live, or on `meta`, as
shapes without data, to be made real later.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs default_device

Check it:  python -m katas check default_device
Stuck?     python -m katas hint default_device   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def build_on(device: str | torch.device, factory: Callable[[], nn.Module]) -> nn.Module:
    """Call `factory()` with `device` as the default device, and return the model it builds.

    Every tensor the factory creates without naming a device is created on `device` directly:
    nothing is allocated on the CPU and copied over, and on `meta` nothing is allocated at all.
    Afterwards the caller's default device and default dtype are what they were, whether
    `factory` returned or raised. A device that torch cannot parse, or that this machine does
    not have, raises ValueError naming it, before `factory` is called.
    """
    # TODO(default_device): write build_on; the docstring above is the contract.
    raise NotImplementedError("default_device: build_on")


def materialize(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Give a model built on `meta` real, initialised tensors on `device`; return `model` itself.

    With the same seed, the result equals the same model built on `device`: every parameter
    and buffer holds the value a normal build gives it. Weights tied between modules (one
    tensor held by several) stay tied, holding what a model that ties them after building
    holds: the values of the first module, in `model.modules()` order, that holds them.

    Refused with ValueError naming the culprit, before anything changes: a tensor that is not
    on `meta` (it would lose its values), a module that holds tensors but has no
    `reset_parameters()` to initialise them, `meta` itself, and a device that torch cannot
    parse or this machine does not have.
    """
    # TODO(default_device): write materialize; the docstring above is the contract.
    raise NotImplementedError("default_device: materialize")


def creates_on(device: str | torch.device) -> dict[str, torch.device]:
    """Where four ways of making a tensor put it, while `device` is the default device.

    Returns `{"torch.zeros": ..., "torch.tensor": ..., "torch.from_numpy": ..., "nn.Linear":
    ...}`, each value the `torch.device` of what that way made (for `nn.Linear`, of its
    weight), found by making one. Afterwards the caller's default device is what it was. A
    device that torch cannot parse, or that this machine does not have, raises ValueError
    naming it.
    """
    # TODO(default_device): write creates_on; the docstring above is the contract.
    raise NotImplementedError("default_device: creates_on")
