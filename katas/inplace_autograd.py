"""In-place ops and autograd: change tensors in place without breaking the gradients.

Autograd tracks every in-place change with a version counter. Parameters are changed in place
inside `torch.no_grad()`, never through `.data`; a tensor saved for backward is never changed.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs inplace_autograd

Check it:  python -m katas check inplace_autograd
Stuck?     python -m katas hint inplace_autograd   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import torch
from torch import nn


def init_constant_(model: nn.Module, value: float) -> nn.Module:
    """Set every parameter of `model` to `value` in place and return `model`.

    Under `torch.no_grad()` the in-place `fill_` is allowed on a leaf that requires grad, is not
    recorded in the graph, and bumps the parameter's `_version`, unlike a write through `.data`.
    Buffers (such as BatchNorm's running statistics) are not parameters and stay as they are.
    """
    # TODO(inplace_autograd): write init_constant_; the docstring above is the contract.
    raise NotImplementedError("inplace_autograd: init_constant_")


def sgd_step_(params: Iterable[torch.Tensor], lr: float) -> None:
    """One plain SGD step: `p -= lr * p.grad` in place for each parameter, then clear its grad.

    `params` may be a one-shot generator such as `model.parameters()`, so it is read once.
    Parameters whose `.grad` is None took no part in the loss and are left alone. Grads are
    cleared by setting them to None, as `Optimizer.zero_grad()` does by default.
    """
    # TODO(inplace_autograd): write sgd_step_; the docstring above is the contract.
    raise NotImplementedError("inplace_autograd: sgd_step_")


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `sigmoid(x) + 1` as a new tensor, with correct gradients.

    `torch.sigmoid` saves its output for backward (its derivative is `s * (1 - s)`), so that
    output must not be changed in place: the `+ 1` makes a new tensor.
    """
    # TODO(inplace_autograd): write sigmoid_plus_one; the docstring above is the contract.
    raise NotImplementedError("inplace_autograd: sigmoid_plus_one")
