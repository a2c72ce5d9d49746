"""Default device: build tensors and models straight on a device, or on `meta` with no memory at
all, and turn a `meta` model into a real one.

`with torch.device(d):` makes `d` the default device for the factory calls inside the block
(`torch.zeros`, `torch.empty`, `torch.tensor`, the `torch.empty` inside every `nn.Linear`) and
puts the old default back when the block ends, even on an exception. That replaces the
deprecated `torch.set_default_tensor_type(torch.cuda.FloatTensor)` of older tutorials.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn


# BEGIN SOLUTION
def _as_device(device: str | torch.device, func: str) -> torch.device:
    if isinstance(device, torch.device):
        return device
    if not isinstance(device, str):
        raise TypeError(
            f"{func}: device must be a str or a torch.device, not {type(device).__name__}"
        )
    try:
        return torch.device(device)
    except RuntimeError:
        raise ValueError(
            f"{func}: {device!r} is not a device torch understands; try 'cpu', 'meta' or 'cuda:0'"
        ) from None


# END SOLUTION


# BEGIN SOLUTION
def _own_tensors(module: nn.Module) -> list[str]:
    """Names of the parameters and buffers `module` holds itself (not its children's)."""
    return [
        *(name for name, _ in module.named_parameters(recurse=False)),
        *(name for name, _ in module.named_buffers(recurse=False)),
    ]


# END SOLUTION


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
    # BEGIN SOLUTION
    target = _as_device(device, f"build_on({device!r}, factory)")
    if not callable(factory):
        raise TypeError(
            f"build_on({device!r}, factory): factory must be callable with no arguments, "
            f"not {type(factory).__name__}"
        )
    with target:  # a torch.device is a context manager: the default device inside the block
        model = factory()
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"build_on({device!r}, factory): factory() returned {type(model).__name__}, "
            "not an nn.Module"
        )
    return model
    # END SOLUTION


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
    # BEGIN SOLUTION
    call = f"materialize({type(model).__name__}, {device!r})"
    if not isinstance(model, nn.Module):
        raise TypeError(f"{call}: model must be an nn.Module, not {type(model).__name__}")
    target = _as_device(device, call)
    if target.type == "meta":
        raise ValueError(f"{call}: meta holds no data; materialize onto a real device")
    real = [
        f"{name} ({t.device})"
        for name, t in [*model.named_parameters(), *model.named_buffers()]
        if t.device.type != "meta"
    ]
    if real:
        raise ValueError(
            f"{call}: {', '.join(real)} already hold data, which to_empty would throw away; "
            "materialize only a model built on meta"
        )
    holders = [(name, m) for name, m in model.named_modules() if _own_tensors(m)]
    no_reset = [
        f"{name or 'the model'} ({type(m).__name__})"
        for name, m in holders
        if not callable(getattr(m, "reset_parameters", None))
    ]
    if no_reset:
        raise ValueError(
            f"{call}: {', '.join(no_reset)} hold tensors but have no reset_parameters() to "
            "initialise them after to_empty"
        )
    model.to_empty(device=target)
    with torch.no_grad():
        for _, module in holders:
            module.reset_parameters()
    return model
    # END SOLUTION


def creates_on(device: str | torch.device) -> dict[str, torch.device]:
    """Where four ways of making a tensor put it, inside `with torch.device(device):`.

    Returns `{"torch.zeros": ..., "torch.tensor": ..., "torch.from_numpy": ..., "nn.Linear":
    ...}`, each value the `torch.device` of what was made (for `nn.Linear`, of its weight).
    Factories follow the default device; `torch.from_numpy` shares the numpy array's memory,
    which is on the CPU, so it ignores the default device.
    """
    # BEGIN SOLUTION
    target = _as_device(device, f"creates_on({device!r})")
    with target:
        made = {
            "torch.zeros": torch.zeros(2),
            "torch.tensor": torch.tensor([1.0, 2.0]),
            "torch.from_numpy": torch.from_numpy(np.zeros(2)),
            "nn.Linear": nn.Linear(2, 2).weight,
        }
    return {name: tensor.device for name, tensor in made.items()}
    # END SOLUTION
