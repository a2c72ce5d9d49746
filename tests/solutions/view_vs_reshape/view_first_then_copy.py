"""Tries `view` first and copies only when it raises: flatten_rows and view_or_copy catch
view's RuntimeError and fall back to `x.contiguous().view(...)`, so `shares` is known from
which branch ran rather than read from storage pointers. ensure_contiguous asks for a
row-major clone (`clone(memory_format=torch.contiguous_format)`). center_rows_ centres a
view of the rows when `view` works, and otherwise centres a copy and writes it back with
`copy_`.
"""

from __future__ import annotations

import torch


def center_rows_(x):
    if not isinstance(x, torch.Tensor) or x.dim() == 0:
        kind = type(x).__name__ if not isinstance(x, torch.Tensor) else "a 0-d tensor"
        error = TypeError if not isinstance(x, torch.Tensor) else ValueError
        raise error(f"center_rows_: x must be a tensor of shape (N, ...), not {kind}")
    if not x.dtype.is_floating_point:
        raise TypeError(f"center_rows_: the mean of {x.dtype} rows is not {x.dtype}")
    if x.numel() and 0 in [s for s, n in zip(x.stride(), x.shape, strict=True) if n > 1]:
        raise ValueError("center_rows_: x is expanded (stride 0), its elements share memory")
    width = 1
    for size in x.shape[1:]:
        width *= size
    try:
        rows = x.view(x.shape[0], width)  # a view: writes through it are writes to x
    except RuntimeError:
        rows = x.contiguous().view(x.shape[0], width)  # a copy: centred, then copied back
        rows -= rows.mean(dim=1, keepdim=True)
        x.copy_(rows.view(x.shape))
        return x
    rows -= rows.mean(dim=1, keepdim=True)
    return x


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
