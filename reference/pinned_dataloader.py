"""Pinned DataLoader: stage batches in pinned memory and move them one batch at a time.

The dataset stays on the CPU. The DataLoader builds each batch there, copies it into pinned
(page-locked) memory when an accelerator will read it, and the training loop moves that one
batch to the device, asynchronously when the source is pinned.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

# BEGIN SOLUTION
# Device types that hold no data a host-to-device copy could fill: pinning never helps them.
_NOT_ACCELERATORS = ("cpu", "meta")
# END SOLUTION


# BEGIN SOLUTION
def _as_device(device: str | torch.device, func: str) -> torch.device:
    if isinstance(device, torch.device):
        return device
    if not isinstance(device, str):
        raise TypeError(
            f"{func}: device must be a str or a torch.device, not {type(device).__name__} "
            f"({device!r})"
        )
    try:
        return torch.device(device)
    except RuntimeError:
        raise ValueError(
            f"{func}: {device!r} is not a device torch understands; try 'cpu', 'cuda' or 'cuda:1'"
        ) from None


# END SOLUTION


# BEGIN SOLUTION
def _is_accelerator(device: torch.device) -> bool:
    return device.type not in _NOT_ACCELERATORS


# END SOLUTION


def loader_kwargs(device: str | torch.device, *, num_workers: int = 1) -> dict:
    """The DataLoader options for batches headed to `device`.

    An accelerator (CUDA, XPU, ...) gets `{"num_workers": num_workers, "pin_memory": True}`;
    the CPU (any spelling) and `meta` get `{}`. The answer depends on the device asked for, not
    on the machine: on a machine without that accelerator the DataLoader warns and skips
    pinning.
    """
    # BEGIN SOLUTION
    target = _as_device(device, f"loader_kwargs({device!r})")
    if isinstance(num_workers, bool) or not isinstance(num_workers, int):
        raise TypeError(
            f"loader_kwargs({device!r}, num_workers={num_workers!r}): num_workers must be an int"
        )
    if num_workers < 0:
        raise ValueError(
            f"loader_kwargs({device!r}, num_workers={num_workers}): num_workers cannot be "
            "negative; 0 loads in the main process"
        )
    if not _is_accelerator(target):
        return {}
    return {"num_workers": num_workers, "pin_memory": True}
    # END SOLUTION


def make_loader(
    dataset: Dataset, batch_size: int, device: str | torch.device, *, shuffle: bool = True
) -> DataLoader:
    """A DataLoader over `dataset` that stages batches for `device` (options: `loader_kwargs`).

    The dataset is left where it is; batches move one at a time, with `to_device`.
    """
    # BEGIN SOLUTION
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, **loader_kwargs(device))
    # END SOLUTION


# BEGIN SOLUTION
def _move(value: Any, target: torch.device, accelerator: bool) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(target, non_blocking=accelerator and value.is_pinned())
    if isinstance(value, Mapping):
        moved = {k: _move(v, target, accelerator) for k, v in value.items()}
        if type(value) is dict:
            return moved
        try:  # keep a mapping's own type (OrderedDict, defaultdict, ...) where it allows it
            if isinstance(value, MutableMapping):
                clone = copy.copy(value)
                clone.update(moved)
                return clone
            return type(value)(moved)
        except TypeError:
            return moved
    if isinstance(value, tuple):
        items = [_move(v, target, accelerator) for v in value]
        if hasattr(value, "_fields"):  # a namedtuple takes its fields as arguments
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, list):
        return type(value)(_move(v, target, accelerator) for v in value)
    return value


# END SOLUTION


def to_device(batch: Any, device: str | torch.device) -> Any:
    """`batch` with every tensor moved to `device`, in the same structure.

    Tuples, lists, dicts and namedtuples keep their type, nested to any depth; anything else
    (numbers, strings, None, ...) is returned as the very same object. A pinned tensor headed
    to an accelerator is copied with `non_blocking=True`; every other copy blocks.
    """
    # BEGIN SOLUTION
    target = _as_device(device, f"to_device(..., {device!r})")
    return _move(batch, target, _is_accelerator(target))
    # END SOLUTION
