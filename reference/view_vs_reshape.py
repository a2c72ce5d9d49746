"""View vs reshape: reshape without copying when you can, copy only when you must, and know
which one happened.

A tensor is a storage (a flat block of memory) plus a shape, strides and an offset that say
where each element lives. `view` only writes new shape and strides over the same storage, so
it never copies, and fails when no strides can describe the new shape. `reshape` returns such
a view when one exists and a copy otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch


# BEGIN SOLUTION
def _check_tensor(func: str, x: object) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{func}: x must be a torch.Tensor, not {type(x).__name__}")


# END SOLUTION


# BEGIN SOLUTION
def _shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same storage, judged by where the storage starts (a tensor's own data_ptr() is where
    its first element is, which differs for a slice)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# END SOLUTION


def flatten_rows(x: torch.Tensor) -> torch.Tensor:
    """Reshape `x` of shape (N, ...) to (N, W), W the product of the other sizes.

    A view whenever one is possible, a copy only when it must be. A 1-d (N,) becomes (N, 1);
    W is computed, not inferred with -1, so an empty batch (N = 0) works too. A 0-d tensor
    has no rows and raises ValueError.
    """
    # BEGIN SOLUTION
    _check_tensor("flatten_rows", x)
    if x.dim() == 0:
        raise ValueError(
            f"flatten_rows: x has shape {tuple(x.shape)} (a 0-d tensor); "
            "expected at least one dimension, the rows (N, ...)"
        )
    rows = x.shape[0]
    width = math.prod(x.shape[1:])  # not -1: reshape(0, -1) is ambiguous and raises
    return x.reshape(rows, width)  # a view exactly when x.view(rows, width) would work
    # END SOLUTION


def view_or_copy(x: torch.Tensor, shape: Sequence[int]) -> tuple[torch.Tensor, bool]:
    """Reshape `x` to `shape` (one entry may be -1), as a view when possible.

    Returns the tensor and whether it shares storage with `x`, read from the storage pointers.
    A shape that does not fit `x` raises ValueError naming both shapes.
    """
    # BEGIN SOLUTION
    _check_tensor("view_or_copy", x)
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, Sequence) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in shape
    ):
        raise TypeError(f"view_or_copy: shape must be a sequence of ints, not {shape!r}")
    shape = tuple(shape)
    try:
        result = x.reshape(shape)
    except RuntimeError as err:
        raise ValueError(
            f"view_or_copy: cannot reshape x of shape {tuple(x.shape)} ({x.numel()} elements) "
            f"into shape {shape}: {err}"
        ) from None
    return result, _shares_storage(result, x)
    # END SOLUTION


def ensure_contiguous(x: torch.Tensor) -> torch.Tensor:
    """Return `x` itself when it is contiguous (row-major), else a contiguous copy.

    `x.contiguous()` does exactly that. Expanded and channels_last tensors are not contiguous
    in this sense, so they are copied.
    """
    # BEGIN SOLUTION
    _check_tensor("ensure_contiguous", x)
    return x.contiguous()
    # END SOLUTION
