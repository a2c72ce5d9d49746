"""Uses `torch.flatten(x, 1)` for a batch of two or more dimensions and `unsqueeze(1)` for a
1-d one (both view whenever a view exists); view_or_copy compares `data_ptr()`, the address of
the first element, which a reshape view shares with `x` and a fresh copy does not;
ensure_contiguous allocates a row-major tensor with `torch.empty_like` and copies into it.
center_rows_ computes the centred rows as a new tensor and writes them into `x` with `copy_`.
"""

from __future__ import annotations

import torch


def center_rows_(x):
    if not torch.is_tensor(x):
        raise TypeError(f"center_rows_: x must be a tensor, not {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"center_rows_: x has shape {tuple(x.shape)}, a 0-d tensor with no rows")
    if not x.is_floating_point():
        raise TypeError(f"center_rows_: x is {x.dtype}, not floating point")
    if (
        x.numel() > 0
        and min((s for s, n in zip(x.stride(), x.shape, strict=True) if n > 1), default=1) == 0
    ):
        raise ValueError(f"center_rows_: x has stride {x.stride()}: expanded, cannot change")
    if x.numel() == 0:
        return x
    flat = x.unsqueeze(1) if x.ndim == 1 else torch.flatten(x, 1)
    centred = flat - flat.mean(dim=1, keepdim=True)  # a new tensor, whatever flat was
    x.copy_(centred.view(x.shape))  # copy_ writes into x's own elements, in any layout
    return x


def flatten_rows(x):
    if x.ndim == 0:
        raise ValueError(f"flatten_rows: x has shape {tuple(x.shape)}, a 0-d tensor with no rows")
    return x.unsqueeze(1) if x.ndim == 1 else torch.flatten(x, 1)


def view_or_copy(x, shape):
    try:
        result = torch.reshape(x, list(shape))
    except RuntimeError:
        raise ValueError(
            f"view_or_copy: {x.numel()} elements of shape {tuple(x.shape)} do not fit "
            f"shape {tuple(shape)}"
        ) from None
    return result, result.data_ptr() == x.data_ptr()


def ensure_contiguous(x):
    if x.is_contiguous():
        return x
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    out.copy_(x)
    return out
