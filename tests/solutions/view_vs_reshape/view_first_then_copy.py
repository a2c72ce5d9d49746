"""Tries `view` first and copies only when it raises: flatten_rows and view_or_copy catch
view's RuntimeError and fall back to `x.contiguous().view(...)`, so `shares` is known from
which branch ran rather than read from storage pointers. ensure_contiguous asks for a
row-major clone (`clone(memory_format=torch.contiguous_format)`).
"""

from __future__ import annotations

import torch


def flatten_rows(x):
    if x.dim() == 0:
        raise ValueError("flatten_rows: x is 0-d (shape ()), it has no rows")
    width = 1
    for size in x.shape[1:]:
        width *= size
    try:
        return x.view(x.shape[0], width)
    except RuntimeError:
        return x.contiguous().view(x.shape[0], width)


def view_or_copy(x, shape):
    shape = tuple(shape)
    try:
        return x.view(shape), True
    except RuntimeError:
        pass
    try:
        return x.contiguous().view(shape), False
    except RuntimeError as err:
        raise ValueError(
            f"view_or_copy: x of shape {list(x.shape)} cannot be {list(shape)}"
        ) from err


def ensure_contiguous(x):
    if x.is_contiguous():
        return x
    return x.clone(memory_format=torch.contiguous_format)
