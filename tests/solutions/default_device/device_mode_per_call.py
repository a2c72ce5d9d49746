"""Enters the default device with `torch.device(...).__enter__()` / `__exit__` by hand in a
`try`/`finally`; materializes module by module with `to_empty(recurse=False)` (a Parameter two
modules hold is met twice: the second module gets the first one's new tensor), and initialises
each module right after allocating it, in `model.modules()` order.
"""

import numpy as np
import torch
from torch import nn


def _target(device):
    target = device if isinstance(device, torch.device) else None
    if target is None:
        try:
            target = torch.device(device)
        except Exception:
            raise ValueError(f"unknown device {device!r}") from None
    if target.type in ("cpu", "meta"):
        return target
    acc = torch.accelerator.current_accelerator()
    n = torch.accelerator.device_count() if acc is not None else 0
    if acc is None or acc.type != target.type or (target.index or 0) >= n:
        raise ValueError(f"{device!r}: not on this machine ({n} accelerator device(s))")
    return target


def build_on(device, factory):
    ctx = _target(device)
    ctx.__enter__()
    try:
        model = factory()
    finally:
        ctx.__exit__(None, None, None)
    return model


def materialize(model, device):
    target = _target(device)
    if target.type == "meta":
        raise ValueError("meta is not a real device")
    if not all(t.is_meta for t in [*model.parameters(), *model.buffers()]):
        real = [n for n, t in [*model.named_parameters(), *model.named_buffers()] if not t.is_meta]
        raise ValueError(f"materialize wants a model built on meta; {real} hold data")
    modules = list(model.named_modules())
    for name, m in modules:
        own = {**m._parameters, **m._buffers}
        if any(v is not None for v in own.values()) and not hasattr(m, "reset_parameters"):
            raise ValueError(f"module {name!r} has tensors but no reset_parameters()")
    new: dict[int, nn.Parameter] = {}
    with torch.no_grad():
        for _, m in modules:
            olds = {k: p for k, p in m._parameters.items() if p is not None}
            reused = {k: new[id(p)] for k, p in olds.items() if id(p) in new}
            if not olds and not any(b is not None for b in m._buffers.values()):
                continue
            m.to_empty(device=target, recurse=False)
            for k, p in m._parameters.items():
                if k in olds and k not in reused:
                    new[id(olds[k])] = p
            saved = {k: p.clone() for k, p in reused.items()}
            for k, p in reused.items():
                m._parameters[k] = p
            m.reset_parameters()
            for k, p in reused.items():
                p.copy_(saved[k])
    return model


def creates_on(device):
    ctx = _target(device)
    made = {}
    ctx.__enter__()
    try:
        made["torch.zeros"] = torch.zeros(2, 2)
        made["torch.tensor"] = torch.tensor(1.5)
        made["torch.from_numpy"] = torch.from_numpy(np.ones(4, dtype=np.float32))
        made["nn.Linear"] = nn.Linear(4, 2).weight
    finally:
        ctx.__exit__(None, None, None)
    return {k: v.device for k, v in made.items()}
