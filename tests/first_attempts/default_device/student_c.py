"""Allocates with to_empty, then resets each module: a tied weight comes back as two tensors.

Written from: the kata page and the stub only.
Message: returned them as two tensors

Written by a learner (a student after one PyTorch tutorial, who writes an attempt and lets the
checker answer instead of trying torch first) as a first attempt, before any check, on
2026-11-27; kept as written.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn


def _as_device(device: str | torch.device, func: str) -> torch.device:
    """`device` as a torch.device on this machine, or a ValueError naming it."""
    if isinstance(device, torch.device):
        target = device
    elif isinstance(device, str):
        try:
            target = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{func}: {device!r} is not a device torch understands; try 'cpu', 'meta' or "
                "'cuda:0'"
            ) from None
    else:
        raise TypeError(
            f"{func}: device must be a str or a torch.device, not {type(device).__name__}"
        )
    if target.type in ("cpu", "meta"):
        return target
    # Ask before anything is allocated: torch would fail deep inside (on a build without CUDA,
    # "Torch not compiled with CUDA enabled"), and never name the device.
    accelerator = torch.accelerator.current_accelerator(check_available=True)
    count = torch.accelerator.device_count() if accelerator is not None else 0
    if accelerator is None or accelerator.type != target.type:
        raise ValueError(f"{func}: this machine has no {target.type} device, so no {device!r}")
    if target.index is not None and target.index >= count:
        raise ValueError(
            f"{func}: this machine has {count} {target.type} device(s), so no {device!r}"
        )
    return target


def _own_tensors(module: nn.Module) -> list[torch.Tensor]:
    """The parameters and buffers `module` holds itself (not its children's)."""
    return [*module.parameters(recurse=False), *module.buffers(recurse=False)]


def build_on(device: str | torch.device, factory: Callable[[], nn.Module]) -> nn.Module:
    """Return the model `factory()` builds, born on `device`.

    Every tensor the factory makes without naming a device is made on `device` directly:
    nothing is allocated on the CPU and copied over, and on `meta` nothing is allocated at all.
    The caller's defaults (device and dtype) are its own: after `build_on`, they are what they
    were before it. Bad arguments are refused by the given checks.
    """
    target = _as_device(device, f"build_on({device!r}, factory)")
    if not callable(factory):
        raise TypeError(
            f"build_on({device!r}, factory): factory must be callable with no arguments, "
            f"not {type(factory).__name__}"
        )
    # TODO(default_device): call factory so that what it makes is born on `target`
    old_device = torch.get_default_device()
    old_dtype = torch.get_default_dtype()
    torch.set_default_device(target)
    try:
        model = factory()
    finally:
        torch.set_default_device(old_device)
        torch.set_default_dtype(old_dtype)
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"build_on({device!r}, factory): factory() returned {type(model).__name__}, "
            "not an nn.Module"
        )
    return model


def materialize(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Give a model built on `meta` real, initialised tensors on `device`; return `model` itself.

    With the same seed, the result is the model a normal build on `device` gives: each module
    initialised as that build initialises it, every parameter and buffer holding the value
    that build gives it, and what that build shares between modules shared. Bad arguments are
    refused by the given checks.
    """
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
            f"{call}: {', '.join(real)} already hold data, which materializing would throw "
            "away; materialize only a model built on meta"
        )
    no_reset = [
        f"{name or 'the model'} ({type(m).__name__})"
        for name, m in model.named_modules()
        if _own_tensors(m) and not callable(getattr(m, "reset_parameters", None))
    ]
    if no_reset:
        raise ValueError(
            f"{call}: {', '.join(no_reset)} hold tensors but have no reset_parameters() to "
            "initialise them once they are allocated"
        )
    # TODO(default_device): allocate on `target` and initialise as a normal build would
    # .to() cannot copy out of meta (there is nothing to copy): allocate empty memory instead,
    # then let each module fill its own tensors the way its constructor did
    model.to_empty(device=target)
    for m in model.modules():
        if _own_tensors(m):
            m.reset_parameters()
    return model


def creates_on(device: str | torch.device) -> dict[str, torch.device]:
    """Where four ways of making a tensor put it, while `device` is the default device.

    Returns `{"torch.zeros": ..., "torch.tensor": ..., "torch.from_numpy": ..., "nn.Linear":
    ...}`, each value the `torch.device` of what that way makes (for `nn.Linear`, of its
    weight). After it, the caller's default device is what it was before. Bad arguments are
    refused by the given checks.
    """
    target = _as_device(device, f"creates_on({device!r})")
    # TODO(default_device): make one tensor each way while `target` is the default, and say where
    old_device = torch.get_default_device()
    torch.set_default_device(target)
    try:
        where = {
            "torch.zeros": torch.zeros(3).device,
            "torch.tensor": torch.tensor([1.0, 2.0]).device,
            "torch.from_numpy": torch.from_numpy(np.zeros(3)).device,
            "nn.Linear": nn.Linear(4, 2).weight.device,
        }
    finally:
        torch.set_default_device(old_device)
    return where
