"""Uses `with torch.device(...)` like the reference, but asks `torch.accelerator` nothing:
it checks GPUs with `torch.cuda.device_count()` alone; re-ties weights after `to_empty` by name,
from `named_parameters(remove_duplicate=False)`, and resets the modules with `model.apply`
(children before their parent: the same order for modules whose parent holds nothing).
"""

import numpy as np
import torch
from torch import nn


def check(device):
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"not a device: {device!r}")
    try:
        device = torch.device(device)
    except RuntimeError:
        raise ValueError(f"torch does not understand {device!r}") from None
    if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
        raise ValueError(f"{device} does not exist: {torch.cuda.device_count()} GPU(s) here")
    if device.type not in ("cpu", "meta", "cuda"):
        raise ValueError(f"{device} is not a device this kata can use")
    return device


def build_on(device, factory):
    with check(device):
        return factory()


def _resolve(model, dotted):
    *path, attr = dotted.split(".")
    module = model
    for part in path:
        module = getattr(module, part)
    return module, attr


def materialize(model, device):
    device = check(device)
    if device.type == "meta":
        raise ValueError("materialize onto a real device, not meta")
    for name, t in [*model.named_parameters(), *model.named_buffers()]:
        if not t.is_meta:
            raise ValueError(f"{name} is on {t.device}, not meta")
    for name, m in model.named_modules():
        holds = [*m.parameters(recurse=False), *m.buffers(recurse=False)]
        if holds and not callable(getattr(m, "reset_parameters", None)):
            raise ValueError(f"{name or 'model'} has tensors and no reset_parameters()")
    groups: dict[int, list[str]] = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        groups.setdefault(id(p), []).append(name)
    model.to_empty(device=device)
    for names in groups.values():
        owner, attr = _resolve(model, names[0])
        for other in names[1:]:
            module, other_attr = _resolve(model, other)
            setattr(module, other_attr, getattr(owner, attr))
    first_values: dict[int, torch.Tensor] = {}

    def reset(m):
        own = [*m.parameters(recurse=False), *m.buffers(recurse=False)]
        if not own:
            return
        m.reset_parameters()
        for t in own:
            if id(t) in first_values:
                t.copy_(first_values[id(t)])
            else:
                first_values[id(t)] = t.detach().clone()

    with torch.no_grad():
        model.apply(reset)
    return model


def creates_on(device):
    with check(device):
        zeros = torch.zeros(3)
        tensor = torch.tensor([1, 2, 3])
        shared = torch.from_numpy(np.arange(3))
        linear = nn.Linear(3, 1)
    return {
        "torch.zeros": zeros.device,
        "torch.tensor": tensor.device,
        "torch.from_numpy": shared.device,
        "nn.Linear": linear.weight.device,
    }
