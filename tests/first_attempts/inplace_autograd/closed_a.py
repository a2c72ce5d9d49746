"""Keeps the blitz's .data update (and writes init_constant_ through .data too), skipping a
parameter with no gradient and clearing each gradient.

Written from: the kata page and the stub only.
Message: without bumping its version counter

Written by a learner (a student after the 60-minute blitz only, who writes an attempt with the
torch the blitz teaches and the names the page shows, and lets the checker answer) as a first
attempt, before any check, on 2026-11-27; kept as written.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator

import torch
from torch import nn


def _check_number(func: str, name: str, value: object) -> None:
    """Refuse a value that is not a real number (given: an argument check, not the lesson)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{func}: {name}={value!r} must be a real number, not {type(value).__name__}"
        )


def _tensors(func: str, params: Iterable[object]) -> Iterator[torch.Tensor]:
    """`params`, one at a time, refusing anything that is not a tensor (given). Like
    `params` itself, it can be iterated only once when `params` is a generator."""
    for i, p in enumerate(params):
        if not isinstance(p, torch.Tensor):
            raise TypeError(
                f"{func}: params[{i}] is a {type(p).__name__}; expected tensors such as "
                "model.parameters()"
            )
        yield p


def init_constant_(model: nn.Module, value: float) -> nn.Module:
    """Set every entry of every parameter of `model` to `value`; return `model`.

    Only the parameters' values change, in place: each parameter stays the same leaf tensor,
    with the `requires_grad` it had, and its version counter, `_version`, goes up.

    Written for you: the argument checks (bad arguments are refused there) and the `return`.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"init_constant_: model must be an nn.Module, not {type(model).__name__}")
    _check_number("init_constant_", "value", value)
    # TODO(inplace_autograd): set every parameter to `value`, in place
    for p in model.parameters():
        # like the blitz's manual update: change the values through .data so autograd
        # does not record it (unsure whether .data bumps p._version)
        p.data.copy_(torch.ones_like(p.data) * value)
    return model


def sgd_step_(params: Iterable[torch.Tensor], lr: float) -> None:
    """One plain SGD step over `params` (what `model.parameters()` gives): each parameter
    `p` that has a gradient becomes `p - lr * p.grad`, and the next backward pass starts from
    no gradient. Nothing else changes.

    Each update is made in place: the parameter stays the same leaf tensor, with the
    `requires_grad` it had, and its version counter, `_version`, goes up.

    Written for you: the argument checks (bad arguments are refused there; `_tensors` checks
    each entry of `params` as you iterate), and the manual update of PyTorch's 60-minute
    blitz tutorial, as the blitz writes it but for the names. It does not yet do all that this
    docstring asks.
    """
    _check_number("sgd_step_", "lr", lr)
    params = _tensors("sgd_step_", params)
    # TODO(inplace_autograd): the blitz's update; make it do what the docstring says
    for f in params:
        if f.grad is None:  # no gradient: leave this parameter alone
            continue
        f.data.sub_(f.grad.data * lr)
        f.grad = None  # next backward starts from no gradient (instead of accumulating)


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `sigmoid(x) + 1` as a new tensor like `x`, differentiable as that formula is:
    a backward pass through it gives `x` the right gradient. `x` itself is not changed.

    `x` is a floating-point tensor with values in [-10, 10] (the given check refuses what is
    not a floating-point tensor).
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        what = f"a {x.dtype} tensor" if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"sigmoid_plus_one: x must be a floating-point tensor, not {what}")
    # TODO(inplace_autograd): compute sigmoid(x) + 1
    # sigmoid(x) = 1 / (1 + exp(-x)); every step makes a new tensor, nothing in place,
    # so x is untouched and autograd's saved tensors are never changed
    return 1 / (1 + (-x).exp()) + 1
