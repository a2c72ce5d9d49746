"""A learner's first attempt, written from the kata page and the stub alone, before any check
(issue 25's measurement, kept as written): it proves sharing by comparing storages, and flattens
an empty batch without reshape(N, -1). center_rows_ was added when the kata gained it: it
reads the row means from a reshape and subtracts them from `x` itself, broadcast.
"""

from __future__ import annotations

import math
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
        torch.empty(x.shape, device="meta").view(shape)
    except RuntimeError as err:
        raise ValueError(
            f"view_or_copy: cannot reshape x of shape {tuple(x.shape)} ({x.numel()} elements) "
            f"into shape {shape}: {err}"
        ) from None


def _check_centrable(x: object) -> None:
    """center_rows_'s argument checks (given): a tensor with rows, floating point, and not
    expanded."""
    _check_tensor("center_rows_", x)
    if x.dim() == 0:
        raise ValueError(
            f"center_rows_: x has shape {tuple(x.shape)} (a 0-d tensor); "
            "expected at least one dimension, the rows (N, ...)"
        )
    if not x.is_floating_point():
        raise TypeError(f"center_rows_: x must have a floating point dtype, not {x.dtype}")
    if x.numel() and any(s == 0 and n > 1 for n, s in zip(x.shape, x.stride(), strict=True)):
        raise ValueError(
            f"center_rows_: x of shape {tuple(x.shape)} and strides {x.stride()} is expanded "
            "(a stride of 0): several of its elements are one memory location, so they cannot "
            "be changed in place one by one"
        )


def center_rows_(x: torch.Tensor) -> torch.Tensor:
    """Subtract from each row of `x` the mean of that row's elements, in place (added when
    the kata gained the function; the rest of the file is as the learner wrote it)."""
    _check_centrable(x)
    n = x.shape[0]
    # the means may come from a copy: they are only read
    means = x.reshape(n, math.prod(x.shape[1:])).mean(dim=1)
    # the write goes to x itself, the means broadcast over each row's other dimensions
    x -= means.reshape((n,) + (1,) * (x.dim() - 1))
    return x


def flatten_rows(x: torch.Tensor) -> torch.Tensor:
    """Reshape `x` of shape (N, ...) to (N, W), W the product of the other sizes: a 1-d (N,)
    becomes (N, 1), and any N works, 0 included.

    The result shares `x`'s memory whenever some view of `x` has shape (N, W), and is a copy
    only when none has. A 0-d tensor has no rows: ValueError, saying that its shape is ().

    Written for you: the argument checks (the 0-d ValueError, and a TypeError for what is not
    a tensor).
    """
    _check_tensor("flatten_rows", x)
    if x.dim() == 0:
        raise ValueError(
            f"flatten_rows: x has shape {tuple(x.shape)} (a 0-d tensor); "
            "expected at least one dimension, the rows (N, ...)"
        )
    n = x.shape[0]
    w = math.prod(x.shape[1:])  # not -1: with N = 0 there is nothing to infer it from
    # reshape returns a view whenever strides for (n, w) exist over x's storage, else a copy
    return x.reshape(n, w)


def view_or_copy(x: torch.Tensor, shape: Sequence[int]) -> tuple[torch.Tensor, bool]:
    """Reshape `x` to `shape` (one entry may be -1); return `(result, shares)`.

    `result` has `x`'s values in `shape`. It shares `x`'s memory whenever some view of `x` has
    that shape, and is a copy only when none has. `shares` is a bool, True exactly when
    `result` uses `x`'s memory, so that writing through it changes `x`; an `x` with no
    elements has no memory to share, and `shares` may then be either. `shape` is a sequence of
    integers (Python's, NumPy's, or a `torch.Size`). A shape that cannot hold `x`'s elements
    raises ValueError naming both shapes.

    Written for you: the argument checks, reading `shape`, and the ValueError for a shape that
    does not fit.
    """
    _check_tensor("view_or_copy", x)
    shape = _shape(shape)
    _check_fits(x, shape)
    try:
        result = x.view(shape)
    except RuntimeError:
        # no strides describe `shape` over x's storage: the values have to be copied
        result = x.reshape(shape)
    # check it rather than trust the branch: a view uses the same storage block as x
    shares = result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    return result, bool(shares)


def ensure_contiguous(x: torch.Tensor) -> torch.Tensor:
    """Return `x` itself when it is already contiguous (row-major order), and otherwise a
    contiguous copy with the same values.

    Row-major is the default memory format: an expanded tensor (elements shared by several
    indices) or a channels_last one is not row-major, and gets copied. The argument check is
    written for you.
    """
    _check_tensor("ensure_contiguous", x)
    if x.is_contiguous():  # default memory_format: row-major
        return x
    return x.contiguous()
