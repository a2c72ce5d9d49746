"""View vs reshape: reshape without copying when you can, copy only when you must, and know
which one happened.

A tensor is a flat block of memory (its storage) plus a shape, strides and an offset that say
where each element lives. Some new shapes can be laid over the same memory and some cannot. A
reshaped tensor that shares memory with the original cost nothing to make, and writing through
it changes the original; a copy costs memory and time, and is independent. Here you reshape
batches, say honestly whether memory is shared, and copy a tensor into row-major order only
when it is not already.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs view_vs_reshape

Check it:  python -m katas check view_vs_reshape
Stuck?     python -m katas hint view_vs_reshape   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def flatten_rows(x: torch.Tensor) -> torch.Tensor:
    """Reshape `x` of shape (N, ...) to (N, W), W the product of the other sizes: a 1-d (N,)
    becomes (N, 1), and any N works, 0 included.

    The result shares `x`'s memory whenever some view of `x` has shape (N, W), and is a copy
    only when none has. A 0-d tensor has no rows: ValueError, saying that its shape is ().
    """
    # TODO(view_vs_reshape): write flatten_rows; the docstring above is the contract.
    raise NotImplementedError("view_vs_reshape: flatten_rows")


def view_or_copy(x: torch.Tensor, shape: Sequence[int]) -> tuple[torch.Tensor, bool]:
    """Reshape `x` to `shape` (one entry may be -1); return `(result, shares)`.

    `result` has `x`'s values in `shape`. It shares `x`'s memory whenever some view of `x` has
    that shape, and is a copy only when none has. `shares` is a bool, True exactly when
    `result` uses `x`'s memory, so that writing through it changes `x`. A shape that cannot
    hold `x`'s elements raises ValueError naming both shapes.
    """
    # TODO(view_vs_reshape): write view_or_copy; the docstring above is the contract.
    raise NotImplementedError("view_vs_reshape: view_or_copy")


def ensure_contiguous(x: torch.Tensor) -> torch.Tensor:
    """Return `x` itself when it is already contiguous (row-major order), and otherwise a
    contiguous copy with the same values.

    Row-major is the default memory format: an expanded tensor (elements shared by several
    indices) or a channels_last one is not row-major, and gets copied.
    """
    # TODO(view_vs_reshape): write ensure_contiguous; the docstring above is the contract.
    raise NotImplementedError("view_vs_reshape: ensure_contiguous")
