"""Imports `DataParallel` by name, wraps first and then moves the wrapper with `.cuda(i)` (which
moves the model inside), strips keys by slicing, unwraps recursively, and counts chunk sizes
with a loop.
"""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch.nn import DataParallel, Module
from torch.nn.parallel import DistributedDataParallel

PREFIX = "module."


def parallelize(model: Module, device_ids=None) -> Module:
    if not isinstance(model, Module):
        raise TypeError("parallelize: model must be an nn.Module, got " + type(model).__name__)
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if device_ids is None:
        device_ids = list(range(count))
    elif not isinstance(device_ids, list) or not device_ids:
        raise ValueError(f"parallelize: bad device_ids {device_ids!r}")
    else:
        seen = set()
        for i in device_ids:
            if isinstance(i, bool) or not isinstance(i, int):
                raise ValueError(f"parallelize: device id {i!r} is not an int")
            if i < 0 or i >= count:
                raise ValueError(f"parallelize: no GPU {i} among {count}")
            if i in seen:
                raise ValueError(f"parallelize: GPU {i} appears twice")
            seen.add(i)
    if not device_ids:
        return model
    if len(device_ids) == 1:
        model.cuda(device_ids[0])
        return model
    wrapper = DataParallel(model, device_ids=list(device_ids))
    wrapper.cuda(device_ids[0])
    return wrapper


def unwrap(model: Module) -> Module:
    if isinstance(model, (DataParallel, DistributedDataParallel)):
        return unwrap(model.module)
    return model


def _strip(key: str) -> str:
    return key[len(PREFIX) :]


def strip_module_prefix(state_dict: dict) -> dict:
    if not isinstance(state_dict, dict):
        raise TypeError("strip_module_prefix: state_dict must be a dict")
    keys = list(state_dict)
    strip = bool(keys) and all(isinstance(k, str) and k[: len(PREFIX)] == PREFIX for k in keys)
    result = OrderedDict()
    for key in keys:
        result[_strip(key) if strip else key] = state_dict[key]
    if hasattr(state_dict, "_metadata"):
        meta = OrderedDict()
        for key, value in state_dict._metadata.items():
            if not strip:
                meta[key] = value
            elif key == PREFIX[:-1]:
                meta[""] = value
            elif key[: len(PREFIX)] == PREFIX:
                meta[_strip(key)] = value
        result._metadata = meta
    return result


def scatter_sizes(batch_size: int, n_devices: int) -> list[int]:
    for name, value in (("batch_size", batch_size), ("n_devices", n_devices)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"scatter_sizes: {name} must be a positive int, got {value!r}")
    per_device = (batch_size + n_devices - 1) // n_devices
    sizes, left = [], batch_size
    while left > 0:
        sizes.append(min(per_device, left))
        left -= sizes[-1]
    return sizes
