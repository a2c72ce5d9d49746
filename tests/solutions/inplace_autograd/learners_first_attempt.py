"""A learner's first attempt, written from the kata page and the stub alone, before any check
(issue 25's measurement, kept as written): it updates under torch.no_grad() and clears each
gradient to None; sigmoid_plus_one is torch.sigmoid(x) + 1.
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
    """Set every entry of every parameter of `model` to `value`, in place; return `model`.

    Afterwards each parameter is the same object as before, still a leaf with the
    `requires_grad` it had, and the change is not part of any autograd graph, yet autograd has
    seen it: the parameter's version counter (`_version`) went up. Buffers (BatchNorm's running
    statistics) are not parameters and stay as they are.

    Written for you: the argument checks (a model that is not an `nn.Module`, a value that is
    not a real number, are TypeErrors) and the `return`.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"init_constant_: model must be an nn.Module, not {type(model).__name__}")
    _check_number("init_constant_", "value", value)
    # no_grad: not recorded; fill_ on the parameter itself (not .data): _version goes up
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(value)
    return model


def sgd_step_(params: Iterable[torch.Tensor], lr: float) -> None:
    """One plain SGD step: each parameter `p` that has a gradient becomes `p - lr * p.grad`,
    and its gradient is then cleared, so that the next backward pass starts afresh.

    The parameters change in place: the same objects, still leaves, the update not recorded
    by autograd, and each one's version counter (`_version`) up. A parameter whose `.grad` is
    None took no part in the loss and is left alone. `params` may be a one-shot iterator
    such as `model.parameters()`.

    Written for you: the argument checks (`lr` not a real number, an entry of `params` that is
    not a tensor, are TypeErrors; `_tensors` checks each entry as you iterate).
    """
    _check_number("sgd_step_", "lr", lr)
    params = _tensors("sgd_step_", params)
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p.sub_(lr * p.grad)
            p.grad = None


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `sigmoid(x) + 1`: a new tensor with the shape, dtype and device of `x`.

    It is differentiable like `sigmoid(x) + 1`: `requires_grad` follows `x`, and a backward
    pass through it gives `x` the gradient of `sigmoid(x) + 1`. Neither `x` nor any tensor
    that autograd saved for that backward pass is changed.

    `x` is a floating-point tensor whose values lie in [-10, 10]; anything but a floating-point
    tensor is a TypeError (that check is written for you). Where `exp` overflows, far outside
    that range, is not this kata's lesson, and nothing is promised there. The gradient is
    checked in float32 and float64, where it can be told apart from rounding.
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        what = f"a {x.dtype} tensor" if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"sigmoid_plus_one: x must be a floating-point tensor, not {what}")
    # not `torch.sigmoid(x).add_(1)`: sigmoid saves its output for backward, so changing it in
    # place makes backward() fail. Out of place makes a new tensor and leaves the saved one alone.
    return torch.sigmoid(x) + 1
