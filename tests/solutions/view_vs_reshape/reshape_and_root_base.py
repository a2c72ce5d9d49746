"""Reshapes with `Tensor.reshape` and judges sharing by the autograd view chain: a view made by
reshape has the same root (`_base`) as `x`, or `x` itself when `x` is not a view; a copy is no
view at all. The row width comes from `x.numel() // N` when there are rows, and from the
sizes when the batch is empty. ensure_contiguous is `x.contiguous()`.
"""

from __future__ import annotations

import math


def flatten_rows(x):
    if not x.shape:
        raise ValueError("flatten_rows: a scalar (0-d tensor, shape ()) has no rows")
    rows = len(x)
    width = x.numel() // rows if rows else math.prod(x.shape[1:])
    return x.reshape(rows, width)


def view_or_copy(x, shape):
    shape = list(shape)
    try:
        result = x.reshape(shape)
    except RuntimeError as err:
        raise ValueError(
            f"view_or_copy: shape {shape} cannot hold x of shape {list(x.shape)}: {err}"
        ) from None
    root = x if x._base is None else x._base
    return result, result is x or (result._base is not None and result._base is root)


def ensure_contiguous(x):
    return x.contiguous()
