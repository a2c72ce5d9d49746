"""In-place ops and autograd: change tensors in place without breaking the gradients.

Initialising a model and stepping an optimizer change parameters in place, and so do many
small speed-ups in a forward pass. Here you write the three kinds of change, each so that the
gradients stay right.
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
    # BEGIN SOLUTION: set every parameter to `value`, in place
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(value)
    # END SOLUTION
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
    # BEGIN SOLUTION: the blitz's update; make it do what the docstring says
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p.sub_(p.grad, alpha=lr)
            p.grad = None
    # STUB
    # for f in params:
    #     f.data.sub_(f.grad.data * lr)
    # END SOLUTION


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `sigmoid(x) + 1` as a new tensor like `x`, differentiable as that formula is:
    a backward pass through it gives `x` the right gradient. `x` itself is not changed.

    `x` is a floating-point tensor with values in [-10, 10] (the given check refuses what is
    not a floating-point tensor).

    Written for you: the argument check, and a first version, which adds the 1 in place so as
    not to make a second tensor. It returns the right values.
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        what = f"a {x.dtype} tensor" if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"sigmoid_plus_one: x must be a floating-point tensor, not {what}")
    # BEGIN SOLUTION: check this first version as it is, then make it differentiable
    return torch.sigmoid(x) + 1
    # STUB
    # y = torch.sigmoid(x)
    # y += 1  # in place: no second tensor
    # return y
    # END SOLUTION
