"""Borrows the default device with `torch.set_default_device` and puts the caller's back in a
`finally`; keeps tied weights through `to_empty` by swapping tensors in place
(`torch.__future__.set_swap_module_params_on_conversion`), and asks `torch.cuda` which GPUs
there are.
"""

from __future__ import annotations

import numpy
import torch
from torch import nn


def _device(device, where):
    try:
        d = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(f"{where}: cannot use {device!r} as a device ({err})") from None
    if d.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0 or (d.index or 0) >= count:
            raise ValueError(f"{where}: {device!r} is not here; this machine has {count} GPU(s)")
    elif d.type not in ("cpu", "meta"):
        raise ValueError(f"{where}: no {device!r} on this machine")
    return d


def build_on(device, factory):
    d = _device(device, "build_on")
    before = torch.get_default_device()
    torch.set_default_device(d)
    try:
        return factory()
    finally:
        torch.set_default_device(before)


def materialize(model, device):
    d = _device(device, "materialize")
    if d.type == "meta":
        raise ValueError("materialize: 'meta' holds no data")
    everything = dict(model.named_parameters()) | dict(model.named_buffers())
    real = sorted(name for name, t in everything.items() if t.device.type != "meta")
    if real:
        raise ValueError(f"materialize: {', '.join(real)} already hold data")
    owners = []
    for name, m in model.named_modules():
        own = list(m.parameters(recurse=False)) + list(m.buffers(recurse=False))
        if own:
            if not hasattr(m, "reset_parameters"):
                raise ValueError(f"materialize: {name} ({type(m).__name__}) cannot be reset")
            owners.append(m)
    swap = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        model.to_empty(device=d)
    finally:
        torch.__future__.set_swap_module_params_on_conversion(swap)
    done = set()
    with torch.no_grad():
        for m in owners:
            own = list(m.parameters(recurse=False)) + list(m.buffers(recurse=False))
            saved = {id(t): t.clone() for t in own if id(t) in done}
            m.reset_parameters()
            for t in own:
                if id(t) in saved:
                    t.copy_(saved[id(t)])
                done.add(id(t))
    return model


def creates_on(device):
    d = _device(device, "creates_on")
    before = torch.get_default_device()
    torch.set_default_device(d)
    try:
        return {
            "torch.zeros": torch.zeros(1).device,
            "torch.tensor": torch.tensor([0.0]).device,
            "torch.from_numpy": torch.from_numpy(numpy.ones(1)).device,
            "nn.Linear": nn.Linear(1, 1).weight.device,
        }
    finally:
        torch.set_default_device(before)
