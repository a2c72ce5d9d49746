"""Splits the batch as evenly as it can, the remainder spread over the first GPUs.

Written from: the kata page and the stub only.
Message: not as evenly as it can

Written by a learner (a student after one PyTorch tutorial, who writes an attempt and lets the
checker answer instead of trying torch first) as a first attempt, before any check, on
2026-11-27; kept as written.
"""

from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn


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
    if not ids:
        return model
    # DataParallel wants the model's parameters on the first GPU it is given.
    model.to(torch.device("cuda", ids[0]))
    if len(ids) == 1:
        return model
    return nn.DataParallel(model, device_ids=ids)


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a DataParallel or DistributedDataParallel wrapper; any other module as
    it is."""
    if isinstance(model, (nn.DataParallel, nn.parallel.DistributedDataParallel)):
        return model.module
    return model


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
    prefix = "module."
    metadata = getattr(state_dict, "_metadata", None)
    strip = bool(state_dict) and all(
        isinstance(k, str) and k.startswith(prefix) for k in state_dict
    )
    if not strip:
        result = OrderedDict(state_dict)
        if metadata is not None:
            result._metadata = OrderedDict(metadata)  # type: ignore[attr-defined]
        return result
    result = OrderedDict((k[len(prefix):], v) for k, v in state_dict.items())
    if metadata is not None:
        new_meta = OrderedDict()
        for k, v in metadata.items():
            if k == "module":
                new_meta[""] = v
            elif k.startswith(prefix):
                new_meta[k[len(prefix):]] = v
            # "" is the wrapper's own entry: the plain model has no wrapper, so drop it
        result._metadata = new_meta  # type: ignore[attr-defined]
    return result


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
    base, extra = divmod(batch_size, n_devices)
    sizes = [base + 1] * extra + [base] * (n_devices - extra)
    return [s for s in sizes if s > 0]
