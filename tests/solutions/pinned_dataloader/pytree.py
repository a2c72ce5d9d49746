"""Lets `torch.utils._pytree.tree_map_only` walk the batch (it knows lists, tuples, dicts and
namedtuples, and returns other leaves untouched), and asks `torch.accelerator` which devices
exist.
"""

from __future__ import annotations

import torch
from torch.utils import _pytree as pytree
from torch.utils.data import DataLoader

HOST_ONLY = frozenset({"cpu", "meta"})


def _device(device, name):
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"{name}: device {device!r} is neither a str nor a torch.device")
    try:
        return torch.device(device)
    except RuntimeError:
        raise ValueError(f"{name}: unknown device {device!r}") from None


def loader_kwargs(device, *, num_workers=1):
    dev = _device(device, "loader_kwargs")
    if not isinstance(num_workers, int) or isinstance(num_workers, bool):
        raise TypeError("loader_kwargs: num_workers must be an int")
    if num_workers < 0:
        raise ValueError(f"loader_kwargs: negative num_workers {num_workers}")
    return {} if dev.type in HOST_ONLY else {"num_workers": num_workers, "pin_memory": True}


def make_loader(dataset, batch_size, device, *, shuffle=True):
    return DataLoader(
        dataset=dataset, batch_size=batch_size, shuffle=shuffle, **loader_kwargs(device)
    )


def to_device(batch, device):
    dev = _device(device, "to_device")
    accelerated = dev.type not in HOST_ONLY
    if accelerated:
        here = torch.accelerator.current_accelerator()
        count = torch.accelerator.device_count() if here is not None else 0
        if here is None or here.type != dev.type or (dev.index or 0) >= count:
            raise ValueError(f"to_device: no such device here: {dev}")
    return pytree.tree_map_only(
        torch.Tensor, lambda t: t.to(dev, non_blocking=accelerated and t.is_pinned()), batch
    )
