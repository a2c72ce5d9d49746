"""Leaves `device_ids=None` to DataParallel itself (it takes every GPU), strips keys with
`str.replace(..., 1)` once every key is known to start with the prefix, and asks
`Tensor.chunk` for the sizes instead of computing them.
"""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn


def _check_ids(device_ids, n):
    if not isinstance(device_ids, (list, tuple)):
        raise ValueError(f"device_ids must be a list, not {device_ids!r}")
    if not device_ids:
        raise ValueError("device_ids=[] names no GPU")
    for i in device_ids:
        if not isinstance(i, int) or isinstance(i, bool):
            raise ValueError(f"device id {i!r} is not an int")
        if i not in range(n):
            raise ValueError(f"GPU {i} does not exist; this machine has {n}")
    if len(device_ids) != len(set(device_ids)):
        raise ValueError(f"device_ids={device_ids!r} has duplicates")


def parallelize(model, device_ids=None):
    if not isinstance(model, nn.Module):
        raise TypeError(f"parallelize expects an nn.Module, got {type(model).__name__}")
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if device_ids is not None:
        _check_ids(device_ids, n)
    used = n if device_ids is None else len(device_ids)
    if used == 0:
        return model
    first = 0 if device_ids is None else device_ids[0]
    model.to(torch.device(f"cuda:{first}"))
    if used == 1:
        return model
    if device_ids is None:
        return torch.nn.parallel.DataParallel(model)
    return torch.nn.parallel.DataParallel(model, device_ids=list(device_ids))


def unwrap(model):
    wrappers = (torch.nn.parallel.DataParallel, torch.nn.parallel.DistributedDataParallel)
    return unwrap(model.module) if isinstance(model, wrappers) else model


def strip_module_prefix(state_dict):
    if not isinstance(state_dict, dict):
        raise TypeError(f"strip_module_prefix needs a dict, got {type(state_dict).__name__}")
    p = "module."
    strip = len(state_dict) > 0 and all(isinstance(k, str) and k.startswith(p) for k in state_dict)
    out = OrderedDict(((k.replace(p, "", 1) if strip else k), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        meta = state_dict._metadata
        if strip:
            meta = {
                ("" if k == "module" else k.replace(p, "", 1)): v
                for k, v in meta.items()
                if k == "module" or k.startswith(p)
            }
        out._metadata = OrderedDict(meta)
    return out


def scatter_sizes(batch_size, n_devices):
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, not {batch_size!r}")
    if not isinstance(n_devices, int) or isinstance(n_devices, bool) or n_devices < 1:
        raise ValueError(f"n_devices (the number of devices) must be positive, not {n_devices!r}")
    return [len(part) for part in torch.empty(batch_size, 0).chunk(n_devices)]
