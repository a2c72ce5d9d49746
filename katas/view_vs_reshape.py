"""View vs reshape: reshape without copying when you can, copy only when you must, and know
which one happened.

A tensor is a flat block of memory (its storage) plus a shape, strides and an offset that say
where each element lives. Some new shapes can be laid over the same memory and some cannot. A
reshaped tensor that shares memory with the original cost nothing to make, and writing through
it changes the original; a copy costs memory and time, and is independent. Here you fix a
function that centres the rows of a batch in place, reshape batches, say honestly whether
memory is shared, and copy a tensor into row-major order only when it is not already.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs view_vs_reshape

Check it:  python -m katas check view_vs_reshape
Stuck?     python -m katas hint view_vs_reshape   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import torch


def _check_tensor(func: str, x: object) -> None:
    """Refuse what is not a tensor (given: an argument check, not the lesson)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{func}: x must be a torch.Tensor, not {type(x).__name__}")


def _shape(shape: object) -> tuple[int, ...]:
    """`shape` as a tuple of ints, from any spelling of one (given)."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:  # any integer type spells a size: int, numpy's, a 0-d integer tensor
        if not isinstance(shape, Sequence) or any(isinstance(s, bool) for s in shape):
            raise TypeError
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"view_or_copy: shape must be a sequence of ints, not {shape!r}") from None


def _check_fits(x: torch.Tensor, shape: tuple[int, ...]) -> None:
    """ValueError naming both shapes when `shape` cannot hold x's elements (given). It asks a
    tensor on the `meta` device, which has a shape but no data, so nothing is copied."""
    try:
        torch.empty(x.shape, device="meta").reshape(shape)
    except RuntimeError as err:
        raise ValueError(
            f"view_or_copy: cannot reshape x of shape {tuple(x.shape)} ({x.numel()} elements) "
            f"into shape {shape}: {err}"
        ) from None


def _check_rows(func: str, x: object) -> None:
    """Refuse what is not a tensor with rows, (N, ...) (given)."""
    _check_tensor(func, x)
    if x.dim() == 0:
        raise ValueError(
            f"{func}: x has shape {tuple(x.shape)} (a 0-d tensor); "
            "expected at least one dimension, the rows (N, ...)"
        )


def _check_centrable(x: object) -> None:
    """center_rows_'s argument checks (given): a tensor with rows, floating point, and not
    expanded."""
    _check_rows("center_rows_", x)
    if not x.is_floating_point():
        raise TypeError(f"center_rows_: x must have a floating point dtype, not {x.dtype}")
    if x.numel() and any(s == 0 and n > 1 for n, s in zip(x.shape, x.stride(), strict=True)):
        raise ValueError(
            f"center_rows_: x of shape {tuple(x.shape)} and strides {x.stride()} is expanded "
            "(a stride of 0): several of its elements are one memory location, so they cannot "
            "be changed in place one by one"
        )


def center_rows_(x: torch.Tensor) -> torch.Tensor:
    """Subtract from each row of `x` (shape (N, ...), floating point) the mean of that row's
    elements, in place: `x` itself changes, and is returned.

    A row is `x[i]`, all its W elements (W the product of the sizes after the first; a 1-d `x`
    has rows of one element). Only `x`'s elements change: other elements of the memory `x`
    shares, such as the rows a slice of a batch skips, keep their values. With no elements
    (N = 0, or W = 0) there is nothing to change: `x` is returned as it was.

    Written for you: the argument checks, and a first version of the function, as it is often
    written. The checks refuse what is not a tensor, a 0-d tensor and a dtype that is not
    floating point, and an expanded `x` (a stride of 0 on a dimension of size above 1), whose
    elements share memory and so cannot be changed one by one (ValueError). The first version
    centres the rows of a freshly made batch, and not of every `x` it accepts.
    """
    _check_centrable(x)
    # TODO(view_vs_reshape): check this first version as it is, then make it centre every x
    if x.numel() == 0:
        return x  # no elements: nothing to change
    rows = x.reshape(x.shape[0], -1)  # (N, W): row i holds x[i]'s elements
    rows -= rows.mean(dim=1, keepdim=True)
    return x


def flatten_rows(x: torch.Tensor) -> torch.Tensor:
    """Reshape `x` of shape (N, ...) to (N, W), W the product of the other sizes.

    The result shares `x`'s memory whenever some view of `x` has shape (N, W), and is a copy
    only when none has.

    Written for you: the argument checks (they refuse bad arguments).
    """
    _check_rows("flatten_rows", x)
    # TODO(view_vs_reshape): give x the shape (N, W), sharing its memory whenever that is possible
    raise NotImplementedError("view_vs_reshape: flatten_rows")


def view_or_copy(x: torch.Tensor, shape: Sequence[int]) -> tuple[torch.Tensor, bool]:
    """Reshape `x` to `shape` (one entry may be -1); return `(result, shares)`.

    `result` has `x`'s values in `shape`. It shares `x`'s memory whenever some view of `x` has
    that shape, and is a copy only when none has. `shares` is a bool, True exactly when
    `result` uses `x`'s memory, so that writing through it changes `x` (an `x` with no
    elements has no memory to share: then either answer is accepted).

    Written for you: the argument checks (bad arguments, and a shape that cannot hold `x`'s
    elements, are refused there) and reading `shape`.
    """
    _check_tensor("view_or_copy", x)
    shape = _shape(shape)
    _check_fits(x, shape)
    # TODO(view_vs_reshape): reshape x, and find out whether the result really uses x's memory
    raise NotImplementedError("view_vs_reshape: view_or_copy")


def ensure_contiguous(x: torch.Tensor) -> torch.Tensor:
    """Return `x` itself when it is already contiguous in row-major order, and otherwise a
    row-major copy with the same values. The argument check is written for you.
    """
    _check_tensor("ensure_contiguous", x)
    # TODO(view_vs_reshape): return x, or a row-major copy of it
    raise NotImplementedError("view_vs_reshape: ensure_contiguous")
