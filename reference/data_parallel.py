"""DataParallel: spread a model over the GPUs only when there are several, and undo the wrapper.

`nn.DataParallel` runs one model on several GPUs of one machine: it splits each batch along its
first dimension, runs a replica on every GPU and gathers the outputs. (PyTorch recommends
DistributedDataParallel instead, even on one machine.) A wrapper keeps the real model inside it,
which is why a wrapped model's checkpoint does not load into the plain model as it is. This kata
wraps only when it pays, reaches the model inside, and makes the checkpoint load again.
"""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn

# BEGIN SOLUTION
_PREFIX = "module."


# END SOLUTION


def _gpu_count() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


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


def parallelize(model: nn.Module, device_ids: list[int] | None = None) -> nn.Module:
    """Spread `model` over the GPUs in `device_ids` (every GPU of this machine when None).

    With two or more GPUs: an `nn.DataParallel` over exactly those GPUs, in that order,
    wrapping `model` and ready to run. With one: `model` itself, ready to run on that GPU. With
    none: `model` itself, untouched. The result is `model` or a wrapper of it, never a copy.

    The given checks refuse bad arguments, and GPUs this machine does not have, before the model
    is touched: `ids` is the GPUs to use.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"parallelize(model={model!r}): expected an nn.Module")
    n = _gpu_count()
    ids = list(range(n)) if device_ids is None else _checked_ids(device_ids, n)
    # BEGIN SOLUTION: decide what to do with the model on these GPUs
    if not ids:
        return model
    model.to(torch.device("cuda", ids[0]))
    if len(ids) == 1:
        return model
    return nn.DataParallel(model, device_ids=ids)
    # END SOLUTION


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a DataParallel or DistributedDataParallel wrapper; any other module as
    it is."""
    # BEGIN SOLUTION
    while isinstance(model, nn.DataParallel | nn.parallel.DistributedDataParallel):
        model = model.module
    return model
    # END SOLUTION


def strip_module_prefix(state_dict: dict) -> dict:
    """A new `OrderedDict` of `state_dict` that loads into the plain model, as `state_dict`
    loads into the wrapper: when every key starts with the `module.` a wrapper puts in front,
    the keys lose it, and everything else `load_state_dict` reads (`_metadata` included) is
    changed to match; otherwise the keys stay as they are. Values and key order are kept, and
    the caller's dict is left as it was.

    Bad arguments are refused by the given check.
    """
    if not isinstance(state_dict, dict):
        raise TypeError(f"strip_module_prefix: expected a dict, not {type(state_dict).__name__}")
    # BEGIN SOLUTION: undo what the wrapper did to the keys and to _metadata
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
    """How many rows each device gets, in device order, when DataParallel scatters a batch of
    `batch_size` rows over `n_devices` GPUs. A device that gets no rows is not listed.

    Bad arguments are refused by the given checks.
    """
    for name, value in (("batch_size", batch_size), ("n_devices", n_devices)):
        if not _is_int(value) or value < 1:
            raise ValueError(
                f"scatter_sizes(batch_size={batch_size!r}, n_devices={n_devices!r}): "
                f"{name} must be a positive int, not {value!r}"
            )
    # BEGIN SOLUTION: split the batch as DataParallel does
    chunk = -(-batch_size // n_devices)  # ceil
    full, rest = divmod(batch_size, chunk)
    return [chunk] * full + ([rest] if rest else [])
    # END SOLUTION
