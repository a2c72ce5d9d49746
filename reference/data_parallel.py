"""DataParallel: wrap a model for several GPUs only when there are several, and undo the wrapper.

`nn.DataParallel` splits each batch along dim 0, runs a replica of the model on every GPU and
gathers the outputs. PyTorch recommends DistributedDataParallel instead, even on one machine;
both keep the real model in `.module`, which is why their checkpoints' keys start `module.`.
"""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn

# BEGIN SOLUTION
_PREFIX = "module."
# END SOLUTION


# BEGIN SOLUTION
def _gpu_count() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


# END SOLUTION


# BEGIN SOLUTION
def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# END SOLUTION


# BEGIN SOLUTION
def _checked_ids(device_ids: object, n: int) -> list[int]:
    """`device_ids` as a list of distinct, existing GPU indexes, or a ValueError naming it."""
    exists = f"this machine has {n} GPU(s)" + (f" (0 to {n - 1})" if n else "")
    if not isinstance(device_ids, list | tuple):
        raise ValueError(
            f"parallelize(device_ids={device_ids!r}): expected a list of GPU indexes or None"
        )
    if not device_ids:
        raise ValueError(
            "parallelize(device_ids=[]): an empty list names no GPU; pass None for all of them"
        )
    for i in device_ids:
        if not _is_int(i):
            raise ValueError(
                f"parallelize(device_ids={device_ids!r}): {i!r} is not a GPU index (an int)"
            )
        if not 0 <= i < n:
            raise ValueError(
                f"parallelize(device_ids={device_ids!r}): there is no GPU {i}; {exists}"
            )
    if len(set(device_ids)) != len(device_ids):
        raise ValueError(f"parallelize(device_ids={device_ids!r}): a GPU is listed twice")
    return list(device_ids)


# END SOLUTION


def parallelize(model: nn.Module, device_ids: list[int] | None = None) -> nn.Module:
    """Spread `model` over the usable GPUs (all of them when `device_ids` is None).

    Two or more: `nn.DataParallel` over them, with the model on `device_ids[0]` first, since
    DataParallel keeps the master copy there. One: the model moved to that GPU, unwrapped.
    None: the model itself, unchanged. A GPU index that does not exist is a ValueError, raised
    before the model is moved or wrapped.
    """
    # BEGIN SOLUTION
    if not isinstance(model, nn.Module):
        raise TypeError(f"parallelize(model={model!r}): expected an nn.Module")
    n = _gpu_count()
    ids = list(range(n)) if device_ids is None else _checked_ids(device_ids, n)
    if not ids:
        return model
    model.to(torch.device("cuda", ids[0]))
    if len(ids) == 1:
        return model
    return nn.DataParallel(model, device_ids=ids)
    # END SOLUTION


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a DataParallel or DistributedDataParallel wrapper, or `model` itself.

    Test the type, not `hasattr(model, "module")`: a plain model may well have a submodule
    that happens to be called `module`.
    """
    # BEGIN SOLUTION
    while isinstance(model, nn.DataParallel | nn.parallel.DistributedDataParallel):
        model = model.module
    return model
    # END SOLUTION


def strip_module_prefix(state_dict: dict) -> dict:
    """A new state dict with the leading `module.` removed from every key, if every key has it.

    Otherwise (some keys lack it, or there are no keys) a copy with the same keys. The input is
    never changed. Key order is kept, and so is `_metadata` (each submodule's version, which
    `load_state_dict` passes on), with its keys stripped the same way.
    """
    # BEGIN SOLUTION
    if not isinstance(state_dict, dict):
        raise TypeError(f"strip_module_prefix: expected a dict, not {type(state_dict).__name__}")
    strip = bool(state_dict) and all(
        isinstance(k, str) and k.startswith(_PREFIX) for k in state_dict
    )
    result = OrderedDict((k[len(_PREFIX) :] if strip else k, v) for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        new_meta = OrderedDict()
        for key, value in metadata.items():
            if strip:
                if key == "":  # the wrapper's own entry: the model's ("module") replaces it
                    continue
                if key == _PREFIX[:-1]:
                    key = ""
                elif key.startswith(_PREFIX):
                    key = key[len(_PREFIX) :]
            new_meta[key] = dict(value) if isinstance(value, dict) else value
        result._metadata = new_meta
    return result
    # END SOLUTION


def scatter_sizes(batch_size: int, n_devices: int) -> list[int]:
    """How many rows each device gets when DataParallel scatters a batch along dim 0.

    DataParallel calls `batch.chunk(n_devices)`: every chunk has `ceil(batch / n)` rows except
    the last, which gets what is left, so there may be fewer chunks than devices.
    10 over 3 gives [4, 4, 2]; 4 over 3 gives [2, 2].
    """
    # BEGIN SOLUTION
    for name, value in (("batch_size", batch_size), ("n_devices", n_devices)):
        if not _is_int(value) or value < 1:
            raise ValueError(
                f"scatter_sizes(batch_size={batch_size!r}, n_devices={n_devices!r}): "
                f"{name} must be a positive int, not {value!r}"
            )
    chunk = -(-batch_size // n_devices)  # ceil
    full, rest = divmod(batch_size, chunk)
    return [chunk] * full + ([rest] if rest else [])
    # END SOLUTION
