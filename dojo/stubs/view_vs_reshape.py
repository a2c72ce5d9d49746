"""View vs reshape: reshape without copying when you can, copy only when you must, and know
which one happened.

A tensor is a flat block of memory (its storage) plus a shape and strides that say where each
element lives. `view` writes new shape and strides over the same memory and never copies;
`reshape` does the same when it can and copies when it must. Read docs/katas/view_vs_reshape.md,
then fill in each function.

Check it:  python -m katas check view_vs_reshape
Stuck?     python -m katas hint view_vs_reshape
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def flatten_rows(x: torch.Tensor) -> torch.Tensor:
    """Reshape `x` of shape (N, ...) to (N, W), where W is the product of the other sizes.

    This is what goes between a conv stack and a Linear layer: one row per sample.

    - Return a view (sharing storage with `x`) whenever one is possible, that is, exactly when
      `x.view(N, W)` would succeed, and a copy only when it must. Writes through a view show in
      `x`; memory is not spent on a copy nobody needed.
    - Never raise on a non-contiguous `x` (a transposed, permuted, sliced or expanded tensor):
      `view` raises on many of them, which is why it is the wrong tool here.
    - A 1-d `x` of shape (N,) becomes (N, 1): each row holds one element.
    - An empty batch works: (0, 3, 4) becomes (0, 12), and (5, 0, 4) becomes (5, 0). Compute W
      yourself rather than writing -1: `reshape(0, -1)` raises, since any W would fit 0 rows.
    - A 0-d `x` has no rows: raise ValueError naming its shape.

    >>> flatten_rows(torch.zeros(8, 3, 4, 4)).shape
    torch.Size([8, 48])
    """
    # TODO(view_vs_reshape): compute W; then which method views when it can, copies if it must?
    raise NotImplementedError("view_vs_reshape: flatten_rows")


def view_or_copy(x: torch.Tensor, shape: Sequence[int]) -> tuple[torch.Tensor, bool]:
    """Reshape `x` to `shape` and say whether the result shares storage with `x`.

    Return `(result, shares)`:
    - `result` has `shape` (one entry may be -1, inferred as usual) and the values of
      `x.reshape(shape)`; it is a view whenever one is possible and a copy only when it must.
    - `shares` is True when `result` uses the same memory as `x`, so writes through it change
      `x`. Find it out from the storage pointers, never assume it: `reshape` decides from the
      strides, not from `x.is_contiguous()`, and a transposed tensor can sometimes be viewed.
    - A shape that cannot hold `x` (another number of elements, two -1s) raises ValueError
      naming both `x.shape` and `shape`, not torch's RuntimeError.

    >>> view_or_copy(torch.arange(6).reshape(2, 3).t(), (6,))[1]   # a transpose must copy
    False
    """
    # TODO(view_vs_reshape): reshape, then compare where the two storages start.
    raise NotImplementedError("view_vs_reshape: view_or_copy")


def ensure_contiguous(x: torch.Tensor) -> torch.Tensor:
    """Return `x` itself (the same object) when it is contiguous, else a contiguous copy.

    Contiguous means row-major: `x.is_contiguous()` is True. Kernels and `view` often need that
    layout, but copying a tensor that already has it wastes memory and time, and breaks the
    caller's expectation that writes to the result reach `x`.

    Expanded tensors (a stride of 0) and channels_last tensors are not contiguous in this
    sense: return a row-major copy of them, so that `result.is_contiguous()` is always True.
    """
    # TODO(view_vs_reshape): torch already has this; do not clone first.
    raise NotImplementedError("view_vs_reshape: ensure_contiguous")
