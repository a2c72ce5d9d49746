"""Reshapes with `Tensor.reshape` and judges sharing by the autograd view chain: a view made by
reshape has the same root (`_base`) as `x`, or `x` itself when `x` is not a view; a copy is no
view at all. The row width comes from `x.numel() // N` when there are rows, and from the
sizes when the batch is empty. ensure_contiguous is `x.contiguous()`. center_rows_ takes
the mean over every dimension but the first, with `keepdim=True`, and subtracts it from `x`.
"""

from __future__ import annotations

import math

import torch


def center_rows_(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"center_rows_: expected a tensor, got {type(x).__name__}")
    if not x.shape:
        raise ValueError("center_rows_: a scalar (0-d tensor, shape ()) has no rows")
    if not torch.is_floating_point(x):
        raise TypeError(f"center_rows_: needs floating point values, x is {x.dtype}")
    if x.numel() and any(n > 1 and s == 0 for n, s in zip(x.shape, x.stride(), strict=True)):
        raise ValueError("center_rows_: an expanded x (stride 0) cannot change in place")
    # unsqueeze gives a 1-d x a second dimension, so that the row dims are never () (mean over
    # dim=() reduces every dim); it is a view, so the in-place sub reaches x
    v = x.unsqueeze(-1)
    v.sub_(v.mean(dim=tuple(range(1, v.dim())), keepdim=True))
    return x


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
