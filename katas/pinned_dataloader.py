"""Pinned DataLoader: stage batches in pinned memory and move them one batch at a time.

The dataset stays on the CPU. The DataLoader builds each batch there and, when an accelerator
will read it, copies it into pinned (page-locked) memory; the training loop then moves that one
batch to the device, asynchronously when it can. Read docs/katas/pinned_dataloader.md, then fill
in each function.

Check it:  python -m katas check pinned_dataloader
Stuck?     python -m katas hint pinned_dataloader
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


def loader_kwargs(device: str | torch.device, *, num_workers: int = 1) -> dict:
    """The extra DataLoader options for batches headed to `device`.

    - An accelerator, such as CUDA (`"cuda"`, `"cuda:1"`, `torch.device("cuda")`, `"xpu"`):
      `{"num_workers": num_workers, "pin_memory": True}`. Workers build the next batches in
      the background, and `pin_memory=True` makes the DataLoader copy each batch into pinned
      (page-locked) host memory, which the GPU can read directly, so the copy to the device is
      faster and can overlap with computation.
    - The CPU, however it is spelled (`"cpu"`, `"cpu:0"`, `torch.device("cpu")`), and `meta`
      (tensors without data): `{}`. Nothing would read the pinned copy, and the DataLoader
      warns when asked to pin without an accelerator.

    The answer depends only on the device asked for, not on the machine: on a machine without
    that accelerator the DataLoader itself warns and does not pin.

    `device` is a string or a `torch.device`. A string torch cannot parse raises ValueError
    quoting it between quote marks (as `f"{device!r}"` does), never torch's RuntimeError; a
    negative `num_workers` raises ValueError.

    >>> loader_kwargs("cuda")
    {'num_workers': 1, 'pin_memory': True}
    >>> loader_kwargs("cpu")
    {}
    """
    # TODO(pinned_dataloader): parse the device, then decide from its type.
    raise NotImplementedError("pinned_dataloader: loader_kwargs")


def make_loader(
    dataset: Dataset, batch_size: int, device: str | torch.device, *, shuffle: bool = True
) -> DataLoader:
    """A DataLoader over `dataset` with `batch_size` and `shuffle`, and the extra options that
    `loader_kwargs(device)` gives.

    Do not move the dataset (or any of its tensors) to the device up front: that would hold
    the whole dataset in device memory at once. The DataLoader builds batches on the CPU;
    `to_device` moves each one as it arrives.

        for batch in make_loader(dataset, 64, device):
            batch = to_device(batch, device)
            ...
    """
    # TODO(pinned_dataloader): one DataLoader(...) call, with **loader_kwargs(device).
    raise NotImplementedError("pinned_dataloader: make_loader")


def to_device(batch: Any, device: str | torch.device) -> Any:
    """Return `batch` with every tensor moved to `device`, in the same structure.

    - A tensor `t` becomes `t.to(device, non_blocking=...)`, where `non_blocking` is True
      exactly when `t.is_pinned()` and `device` is an accelerator (not the CPU, not meta).
      Only a copy from pinned memory can overlap with work on the GPU; from ordinary
      (pageable) memory the host waits while the driver stages the data anyway. Never to the
      CPU: from a GPU, a non-blocking copy returns before the data has arrived.
    - Tuples, lists, dicts and namedtuples are rebuilt with the same type, keys and order,
      nested to any depth. A namedtuple stays that namedtuple, so `batch.image` still works.
    - Anything else (numbers, strings, None, your own objects) comes back as the very same
      object: a batch's labels and file names must survive the move.
    - The caller's `batch` is not changed.

    `device` is a string or a `torch.device`; a string torch cannot parse raises ValueError
    quoting it between quote marks, as `loader_kwargs` does.

    >>> to_device({"x": torch.zeros(2), "name": "a.png"}, "cpu")
    {'x': tensor([0., 0.]), 'name': 'a.png'}
    """
    # TODO(pinned_dataloader): recurse into containers; rebuild each with its own type.
    raise NotImplementedError("pinned_dataloader: to_device")
