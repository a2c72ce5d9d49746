"""Pinned DataLoader: stage batches in pinned memory and move them one batch at a time.

The dataset stays on the CPU. The DataLoader builds each batch there, copies it into pinned
(page-locked) memory when an accelerator will read it, and the training loop moves that one
batch to the device, asynchronously when the source is pinned.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs pinned_dataloader

Check it:  python -m katas check pinned_dataloader
Stuck?     python -m katas hint pinned_dataloader   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


def loader_kwargs(device: str | torch.device, *, num_workers: int = 1) -> dict:
    """The DataLoader options for batches headed to `device`.

    An accelerator (CUDA, XPU, ...) gets `{"num_workers": num_workers, "pin_memory": True}`;
    the CPU (any spelling) and `meta` get `{}`. The answer depends on the device asked for, not
    on the machine: on a machine without that accelerator the DataLoader warns and skips
    pinning.
    """
    # TODO(pinned_dataloader): write loader_kwargs; the docstring above is the contract.
    raise NotImplementedError("pinned_dataloader: loader_kwargs")


def make_loader(
    dataset: Dataset, batch_size: int, device: str | torch.device, *, shuffle: bool = True
) -> DataLoader:
    """A DataLoader over `dataset` that stages batches for `device` (options: `loader_kwargs`).

    The dataset is left where it is; batches move one at a time, with `to_device`.
    """
    # TODO(pinned_dataloader): write make_loader; the docstring above is the contract.
    raise NotImplementedError("pinned_dataloader: make_loader")


def to_device(batch: Any, device: str | torch.device) -> Any:
    """`batch` with every tensor moved to `device`, in the same structure.

    Tuples, lists, dicts and namedtuples keep their type, nested to any depth; anything else
    (numbers, strings, None, ...) is returned as the very same object. A pinned tensor headed
    to an accelerator is copied with `non_blocking=True`; every other copy blocks.
    """
    # TODO(pinned_dataloader): write to_device; the docstring above is the contract.
    raise NotImplementedError("pinned_dataloader: to_device")
