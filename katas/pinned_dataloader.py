"""Pinned DataLoader: keep the dataset on the host, and move one batch at a time.

A GPU is only busy when its next batch is already there. The usual training script keeps the
dataset on the CPU, lets a DataLoader build each batch there and stage it in pinned
(page-locked) memory, and moves that one batch to the device while the GPU is still busy with
the previous one. This kata builds the three pieces of that pattern, and each must keep its
promise whatever the batch looks like and whichever device is asked for.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs pinned_dataloader

Check it:  python -m katas check pinned_dataloader
Stuck?     python -m katas hint pinned_dataloader   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


def loader_kwargs(device: str | torch.device, *, num_workers: int = 1) -> dict:
    """The DataLoader options for batches headed to `device`.

    For an accelerator (CUDA, XPU, ...): `{"num_workers": num_workers, "pin_memory": True}`.
    For the CPU, however it is spelled, and for `meta`: `{}`. The answer depends on the device
    asked for, not on the machine: on a machine without that accelerator, the DataLoader itself
    warns that it cannot pin.

    `device` is a str or a `torch.device` (anything else: TypeError); a string torch cannot
    parse is a ValueError that quotes it. `num_workers` is an int, not a bool (TypeError),
    and not negative (ValueError).
    """
    # TODO(pinned_dataloader): write loader_kwargs; the docstring above is the contract.
    raise NotImplementedError("pinned_dataloader: loader_kwargs")


def make_loader(
    dataset: Dataset, batch_size: int, device: str | torch.device, *, shuffle: bool = True
) -> DataLoader:
    """A DataLoader over `dataset`, with `batch_size`, `shuffle` and the options
    `loader_kwargs(device)` gives.

    The dataset is left as it is: none of its tensors is moved, pinned or replaced. Batches
    are made on the host as the loader is iterated, and `to_device` moves each one.
    """
    # TODO(pinned_dataloader): write make_loader; the docstring above is the contract.
    raise NotImplementedError("pinned_dataloader: make_loader")


def to_device(batch: Any, device: str | torch.device) -> Any:
    """`batch` with every tensor moved to `device`, in the same structure.

    Tuples, lists, dicts and namedtuples keep their type, keys and order, nested to any depth;
    anything else (numbers, strings, None, your own objects) comes back as the very same
    object. The caller's batch is left as it was. A copy is asynchronous exactly when it can
    overlap with the device's work; every other copy blocks.

    The device must exist: the CPU and `meta` always do; an accelerator's device `type:i`
    exists when `type` is this machine's accelerator and `i` is below its device count (a
    bare `"cuda"` needs at least one). Before any tensor is moved: a device that does not
    exist is a ValueError naming it; a string torch cannot parse, a ValueError quoting it;
    anything but a str or a `torch.device`, a TypeError.
    """
    # TODO(pinned_dataloader): write to_device; the docstring above is the contract.
    raise NotImplementedError("pinned_dataloader: to_device")
