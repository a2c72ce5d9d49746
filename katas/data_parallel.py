"""DataParallel: wrap a model for several GPUs only when there are several, and undo the wrapper.

`nn.DataParallel` splits each batch along dim 0 across the GPUs, runs a copy of the model on
each and gathers the outputs; DistributedDataParallel is what PyTorch recommends instead. Both
hide your model in `.module`, which is why their checkpoints have keys starting `module.`. Read
docs/katas/data_parallel.md, then fill in each function.

Check it:  python -m katas check data_parallel
Stuck?     python -m katas hint data_parallel
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import torch  # noqa: F401  (you will need it)
from torch import nn


def parallelize(model: nn.Module, device_ids: list[int] | None = None) -> nn.Module:
    """Spread `model` over the usable GPUs: `device_ids`, or all of them when it is None.

    - Two or more GPUs: return `nn.DataParallel(model, device_ids=...)`, with the model moved
      to `cuda:{device_ids[0]}` first. DataParallel keeps the master copy of the parameters on
      the first GPU and copies it to the others on every forward; it refuses to run when the
      parameters are anywhere else.
    - Exactly one GPU: return the model moved to that GPU, not wrapped. A wrapper around one
      GPU only costs time and renames every `state_dict` key.
    - No GPU: return the model itself, unchanged, on the CPU.

    Return the same model object you were given (or a wrapper whose `.module` is it):
    `Module.to()` moves a model in place, so an optimizer built on its parameters stays valid.
    `device_ids` must be a non-empty list of distinct GPU indexes (ints) that exist on this
    machine; anything else (`[7]` on a 2-GPU machine, `[0, 0]`, `["cuda:1"]`, `[]`) raises
    ValueError naming it, before the model is moved or wrapped.
    """
    # TODO(data_parallel): count the GPUs, check device_ids, then move, wrap or leave alone.
    raise NotImplementedError("data_parallel: parallelize")


def unwrap(model: nn.Module) -> nn.Module:
    """Return the model inside a DataParallel or DistributedDataParallel wrapper.

    Any other module is returned as it is. Use this to save, inspect or reach the attributes of
    the real model, whichever way it was wrapped. Decide by the wrapper's type, not by
    `hasattr(model, "module")`: a plain model may have its own submodule called `module`.
    """
    # TODO(data_parallel): both wrappers keep the real model in `.module`.
    raise NotImplementedError("data_parallel: unwrap")


def strip_module_prefix(state_dict: dict) -> dict:
    """Return a new state dict with a leading `module.` removed from every key.

    A wrapped model's `state_dict()` names its entries `module.<name>`; a plain model expects
    `<name>`. Strip only when every key starts with `module.`, and strip it once, at the start
    only (`module.module.w` becomes `module.w`, `submodule.weight` is left alone). When some key
    lacks the prefix, or there are no keys, return the state with its keys unchanged.

    - Never change the dict you were given: the caller may still need it.
    - Keep the key order, and keep `state_dict._metadata` (an OrderedDict from each submodule's
      name to its version, which `load_state_dict` hands to modules that convert old
      checkpoints): copy it to the result with its keys stripped the same way. In it, `""` is
      the wrapper's own entry and `"module"` the model's, which becomes the new `""`.
    """
    # TODO(data_parallel): check all keys first, then build a new OrderedDict and its _metadata.
    raise NotImplementedError("data_parallel: strip_module_prefix")


def scatter_sizes(batch_size: int, n_devices: int) -> list[int]:
    """Return how many rows each device gets when DataParallel scatters a batch along dim 0.

    DataParallel splits the batch with `batch.chunk(n_devices)`: every chunk has
    `ceil(batch_size / n_devices)` rows except the last, which gets what is left. So 10 rows
    over 3 devices is `[4, 4, 2]`, and 4 rows over 3 devices is `[2, 2]`: a batch can use
    fewer devices than there are. A `batch_size` or `n_devices` that is not a positive int
    raises ValueError saying which of the two it is.
    """
    # TODO(data_parallel): ceil-divide, then count the full chunks and what is left.
    raise NotImplementedError("data_parallel: scatter_sizes")
