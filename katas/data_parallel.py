"""DataParallel: wrap a model for several GPUs only when there are several, and undo the wrapper.

`nn.DataParallel` splits each batch along dim 0, runs a replica of the model on every GPU and
gathers the outputs. PyTorch recommends DistributedDataParallel instead, even on one machine;
both keep the real model in `.module`, which is why their checkpoints' keys start `module.`.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs data_parallel

Check it:  python -m katas check data_parallel
Stuck?     python -m katas hint data_parallel   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn


def parallelize(model: nn.Module, device_ids: list[int] | None = None) -> nn.Module:
    """Spread `model` over the usable GPUs (all of them when `device_ids` is None).

    Two or more: `nn.DataParallel` over them, with the model on `device_ids[0]` first, since
    DataParallel keeps the master copy there. One: the model moved to that GPU, unwrapped.
    None: the model itself, unchanged. A GPU index that does not exist is a ValueError, raised
    before the model is moved or wrapped.
    """
    # TODO(data_parallel): write parallelize; the docstring above is the contract.
    raise NotImplementedError("data_parallel: parallelize")


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a DataParallel or DistributedDataParallel wrapper, or `model` itself.

    Test the type, not `hasattr(model, "module")`: a plain model may well have a submodule
    that happens to be called `module`.
    """
    # TODO(data_parallel): write unwrap; the docstring above is the contract.
    raise NotImplementedError("data_parallel: unwrap")


def strip_module_prefix(state_dict: dict) -> dict:
    """A new state dict with the leading `module.` removed from every key, if every key has it.

    Otherwise (some keys lack it, or there are no keys) a copy with the same keys. The input is
    never changed. Key order is kept, and so is `_metadata` (each submodule's version, which
    `load_state_dict` passes on), with its keys stripped the same way.
    """
    # TODO(data_parallel): write strip_module_prefix; the docstring above is the contract.
    raise NotImplementedError("data_parallel: strip_module_prefix")


def scatter_sizes(batch_size: int, n_devices: int) -> list[int]:
    """How many rows each device gets when DataParallel scatters a batch along dim 0.

    DataParallel calls `batch.chunk(n_devices)`: every chunk has `ceil(batch / n)` rows except
    the last, which gets what is left, so there may be fewer chunks than devices.
    10 over 3 gives [4, 4, 2]; 4 over 3 gives [2, 2].
    """
    # TODO(data_parallel): write scatter_sizes; the docstring above is the contract.
    raise NotImplementedError("data_parallel: scatter_sizes")
