"""DataParallel: spread a model over the GPUs only when there are several, and undo the wrapper.

`nn.DataParallel` runs one model on several GPUs of one machine: it splits each batch along its
first dimension, runs a replica on every GPU and gathers the outputs. (PyTorch recommends
DistributedDataParallel instead, even on one machine.) A wrapper keeps the real model inside it,
which is why a wrapped model's checkpoint does not load into the plain model as it is. This kata
wraps only when it pays, reaches the model inside, and makes the checkpoint load again.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs data_parallel

Check it:  python -m katas check data_parallel
Stuck?     python -m katas hint data_parallel   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import torch
from torch import nn


def parallelize(model: nn.Module, device_ids: list[int] | None = None) -> nn.Module:
    """Spread `model` over the GPUs in `device_ids` (every GPU of this machine when None).

    With two or more GPUs: an `nn.DataParallel` over exactly those GPUs, in that order,
    wrapping `model` and ready to run. With one: `model` itself, on that GPU. With none:
    `model` itself, untouched. The result is `model` or a wrapper of it, never a copy.

    `device_ids` is a non-empty list of distinct indexes of GPUs this machine has; anything
    else is a ValueError naming the bad entry, raised before the model is moved or wrapped.
    A `model` that is not an `nn.Module` is a TypeError.
    """
    # TODO(data_parallel): write parallelize; the docstring above is the contract.
    raise NotImplementedError("data_parallel: parallelize")


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a DataParallel or DistributedDataParallel wrapper; any other module,
    whatever its attributes and submodules, as it is."""
    # TODO(data_parallel): write unwrap; the docstring above is the contract.
    raise NotImplementedError("data_parallel: unwrap")


def strip_module_prefix(state_dict: dict) -> dict:
    """A new `OrderedDict` of `state_dict` in which the keys lose the `module.` that a wrapper
    put in front of them, when every key has it; otherwise (or with no keys) the same keys.

    A key loses that prefix once, and nothing else. Values and key order are kept, and the
    caller's dict is left as it was. The result loads into the plain model with everything
    `load_state_dict` reads, `_metadata` (each submodule's version) included, its keys changed
    the same way: there, the wrapper's own entry `""` goes, and the model's, `"module"`,
    becomes `""`. A `state_dict` that is not a dict is a TypeError.
    """
    # TODO(data_parallel): write strip_module_prefix; the docstring above is the contract.
    raise NotImplementedError("data_parallel: strip_module_prefix")


def scatter_sizes(batch_size: int, n_devices: int) -> list[int]:
    """How many rows each device gets, in device order, when DataParallel scatters a batch of
    `batch_size` rows over `n_devices` GPUs. Devices that get no rows are left out.

    Both arguments must be positive ints; otherwise a ValueError saying which one is wrong.
    """
    # TODO(data_parallel): write scatter_sizes; the docstring above is the contract.
    raise NotImplementedError("data_parallel: scatter_sizes")
