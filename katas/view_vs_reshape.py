"""View vs reshape: reshape without copying when you can, copy only when you must, and know
which one happened.

A tensor is a storage (a flat block of memory) plus a shape, strides and an offset that say
where each element lives. `view` only writes new shape and strides over the same storage, so
it never copies, and fails when no strides can describe the new shape. `reshape` returns such
a view when one exists and a copy otherwise.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs view_vs_reshape

Check it:  python -m katas check view_vs_reshape
Stuck?     python -m katas hint view_vs_reshape   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch


def flatten_rows(x: torch.Tensor) -> torch.Tensor:
    """Reshape `x` of shape (N, ...) to (N, W), W the product of the other sizes.

    A view whenever one is possible, a copy only when it must be. A 1-d (N,) becomes (N, 1);
    W is computed, not inferred with -1, so an empty batch (N = 0) works too. A 0-d tensor
    has no rows and raises ValueError.
    """
    # TODO(view_vs_reshape): write flatten_rows; the docstring above is the contract.
    raise NotImplementedError("view_vs_reshape: flatten_rows")


def view_or_copy(x: torch.Tensor, shape: Sequence[int]) -> tuple[torch.Tensor, bool]:
    """Reshape `x` to `shape` (one entry may be -1), as a view when possible.

    Returns the tensor and whether it shares storage with `x`, read from the storage pointers.
    A shape that does not fit `x` raises ValueError naming both shapes.
    """
    # TODO(view_vs_reshape): write view_or_copy; the docstring above is the contract.
    raise NotImplementedError("view_vs_reshape: view_or_copy")


def ensure_contiguous(x: torch.Tensor) -> torch.Tensor:
    """Return `x` itself when it is contiguous (row-major), else a contiguous copy.

    `x.contiguous()` does exactly that. Expanded and channels_last tensors are not contiguous
    in this sense, so they are copied.
    """
    # TODO(view_vs_reshape): write ensure_contiguous; the docstring above is the contract.
    raise NotImplementedError("view_vs_reshape: ensure_contiguous")
