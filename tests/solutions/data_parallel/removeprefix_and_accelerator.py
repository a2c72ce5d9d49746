"""Counts GPUs with `torch.accelerator` (when CUDA is the accelerator), strips keys with
`str.removeprefix`, checks `device_ids` with set arithmetic, and computes the chunk sizes with
`math.ceil`.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import torch
from torch import nn

WRAPPERS = (nn.DataParallel, nn.parallel.DistributedDataParallel)


def _gpus() -> int:
    accelerator = torch.accelerator.current_accelerator()
    if accelerator is None or accelerator.type != "cuda":
        return 0
    return torch.accelerator.device_count()


def parallelize(model, device_ids=None):
    if not isinstance(model, nn.Module):
        raise TypeError(f"parallelize: {model!r} is not an nn.Module")
    n = _gpus()
    if device_ids is None:
        ids = list(range(n))
    else:
        if not isinstance(device_ids, (list, tuple)) or len(device_ids) == 0:
            raise ValueError(f"parallelize: device_ids={device_ids!r} is not a non-empty list")
        if any(type(i) is not int for i in device_ids):
            raise ValueError(f"parallelize: device_ids={device_ids!r} holds a non-int")
        missing = sorted(set(device_ids) - set(range(n)))
        if missing:
            raise ValueError(f"parallelize: GPU {missing[0]} does not exist (found {n})")
        if len(set(device_ids)) < len(device_ids):
            raise ValueError(f"parallelize: device_ids={device_ids!r} repeats a GPU")
        ids = list(device_ids)
    if len(ids) == 0:
        return model
    model = model.to(f"cuda:{ids[0]}")
    return model if len(ids) == 1 else nn.DataParallel(model, device_ids=ids)


def unwrap(model):
    while isinstance(model, WRAPPERS):
        model = model.module
    return model


def strip_module_prefix(state_dict):
    if not isinstance(state_dict, dict):
        raise TypeError(f"strip_module_prefix: a state dict is a dict, not {state_dict!r}")
    prefix = "module."
    every = len(state_dict) > 0 and all(str(k).startswith(prefix) for k in state_dict)
    out = OrderedDict()
    for key, value in state_dict.items():
        out[key.removeprefix(prefix) if every else key] = value
    meta = getattr(state_dict, "_metadata", None)
    if meta is not None:
        if every:
            new = OrderedDict()
            for key, value in meta.items():
                if key == "module":
                    new[""] = value
                elif key.startswith(prefix):
                    new[key.removeprefix(prefix)] = value
            out._metadata = new
        else:
            out._metadata = OrderedDict(meta)
    return out


def scatter_sizes(batch_size, n_devices):
    if type(batch_size) is not int or batch_size <= 0:
        raise ValueError(f"scatter_sizes: batch_size={batch_size!r} must be a positive int")
    if type(n_devices) is not int or n_devices <= 0:
        raise ValueError(f"scatter_sizes: n_devices={n_devices!r} must be a positive int")
    step = math.ceil(batch_size / n_devices)
    return [min(step, batch_size - start) for start in range(0, batch_size, step)]
