"""In-place ops and autograd: change tensors in place without breaking the gradients.

Autograd tracks every in-place change with a version counter. Parameters are changed in place
inside `torch.no_grad()`, never through `.data`; a tensor saved for backward is never changed.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import torch
from torch import nn


# BEGIN SOLUTION
def _check_number(func: str, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{func}: {name}={value!r} must be a real number, not {type(value).__name__}"
        )


# END SOLUTION


def init_constant_(model: nn.Module, value: float) -> nn.Module:
    """Set every parameter of `model` to `value` in place and return `model`.

    Under `torch.no_grad()` the in-place `fill_` is allowed on a leaf that requires grad, is not
    recorded in the graph, and bumps the parameter's `_version`, unlike a write through `.data`.
    Buffers (such as BatchNorm's running statistics) are not parameters and stay as they are.
    """
    # BEGIN SOLUTION
    if not isinstance(model, nn.Module):
        raise TypeError(f"init_constant_: model must be an nn.Module, not {type(model).__name__}")
    _check_number("init_constant_", "value", value)
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(value)
    return model
    # END SOLUTION


def sgd_step_(params: Iterable[torch.Tensor], lr: float) -> None:
    """One plain SGD step: `p -= lr * p.grad` in place for each parameter, then clear its grad.

    `params` may be a one-shot generator such as `model.parameters()`, so it is read once.
    Parameters whose `.grad` is None took no part in the loss and are left alone. Grads are
    cleared by setting them to None, as `Optimizer.zero_grad()` does by default.
    """
    # BEGIN SOLUTION
    _check_number("sgd_step_", "lr", lr)
    with torch.no_grad():
        for i, p in enumerate(params):
            if not isinstance(p, torch.Tensor):
                raise TypeError(
                    f"sgd_step_: params[{i}] is a {type(p).__name__}; expected tensors such as "
                    "model.parameters()"
                )
            if p.grad is None:
                continue
            p.sub_(p.grad, alpha=lr)
            p.grad = None
    # END SOLUTION


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `sigmoid(x) + 1` as a new tensor, with correct gradients.

    `torch.sigmoid` saves its output for backward (its derivative is `s * (1 - s)`), so that
    output must not be changed in place: the `+ 1` makes a new tensor.
    """
    # BEGIN SOLUTION
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"sigmoid_plus_one: x must be a tensor, not {type(x).__name__}")
    return torch.sigmoid(x) + 1
    # END SOLUTION
