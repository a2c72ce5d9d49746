"""Walks the batch with an explicit stack instead of recursion, counts GPUs with
`torch.cuda.device_count()`, and parses the device by hand-written checks before torch sees it.

Containers are rebuilt bottom-up: each container is visited twice, once to push its items and
once, after them, to assemble its copy from the finished items.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


def _parse(device, where):
    if isinstance(device, torch.device):
        return device
    if isinstance(device, str):
        try:
            return torch.device(device)
        except RuntimeError as err:
            raise ValueError(f"{where}: cannot use {device!r} as a device ({err})") from None
    raise TypeError(f"{where}: expected a str or torch.device, got {type(device).__name__}")


def loader_kwargs(device, *, num_workers=1):
    kind = _parse(device, "loader_kwargs").type
    if type(num_workers) is not int:
        raise TypeError(f"loader_kwargs: num_workers={num_workers!r} is not an int")
    if num_workers < 0:
        raise ValueError(f"loader_kwargs: num_workers={num_workers} < 0")
    if kind in ("cpu", "meta"):
        return {}
    return dict(num_workers=num_workers, pin_memory=True)


def make_loader(dataset: Dataset, batch_size, device, *, shuffle=True):
    options = loader_kwargs(device)
    return DataLoader(dataset, batch_size, shuffle, **options)


def to_device(batch: Any, device) -> Any:
    target = _parse(device, "to_device")
    fast = target.type not in ("cpu", "meta")
    if fast:
        if target.type != "cuda" or not torch.cuda.is_available():
            raise ValueError(f"to_device: {str(target)!r} is not on this machine")
        if target.index is not None and target.index >= torch.cuda.device_count():
            raise ValueError(
                f"to_device: {str(target)!r} does not exist ({torch.cuda.device_count()} GPUs here)"
            )

    done: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(batch, False)]
    while stack:
        node, expanded = stack.pop()
        if isinstance(node, torch.Tensor):
            done[id(node)] = node.to(target, non_blocking=fast and node.is_pinned())
        elif isinstance(node, (dict, list, tuple)) and not expanded:
            stack.append((node, True))
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, False) for child in children)
        elif isinstance(node, dict):
            done[id(node)] = {k: done.get(id(v), v) for k, v in node.items()}
        elif isinstance(node, tuple) and hasattr(node, "_fields"):
            done[id(node)] = type(node)(*[done.get(id(v), v) for v in node])
        elif isinstance(node, (list, tuple)):
            done[id(node)] = type(node)([done.get(id(v), v) for v in node])
    return done.get(id(batch), batch)
