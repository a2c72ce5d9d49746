"""In-place ops and autograd: change tensors in place without breaking the gradients.

Initialising a model and stepping an optimizer change parameters in place, and so do many
small speed-ups in a forward pass. Autograd has to know about each change, or the gradients
come out wrong without a word; and it refuses some changes outright. Here you write the three
kinds of change, each so that autograd stays right.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs inplace_autograd

Check it:  python -m katas check inplace_autograd
Stuck?     python -m katas hint inplace_autograd   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn


def init_constant_(model: nn.Module, value: float) -> nn.Module:
    """Set every entry of every parameter of `model` to `value`, in place; return `model`.

    Afterwards each parameter is the same object as before, still a leaf with the
    `requires_grad` it had, and the change is not part of any autograd graph, yet autograd has
    seen it: the parameter's version counter (`_version`) went up. Buffers (BatchNorm's running
    statistics) are not parameters and stay as they are.
    """
    # TODO(inplace_autograd): write init_constant_; the docstring above is the contract.
    raise NotImplementedError("inplace_autograd: init_constant_")


def sgd_step_(params: Iterable[torch.Tensor], lr: float) -> None:
    """One plain SGD step: each parameter `p` that has a gradient becomes `p - lr * p.grad`,
    and its gradient is then cleared, so that the next backward pass starts afresh.

    The parameters change in place: the same objects, still leaves, the update not recorded
    by autograd, and each one's version counter (`_version`) up. A parameter whose `.grad` is
    None took no part in the loss and is left alone. `params` may be a one-shot iterator
    such as `model.parameters()`.
    """
    # TODO(inplace_autograd): write sgd_step_; the docstring above is the contract.
    raise NotImplementedError("inplace_autograd: sgd_step_")


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `sigmoid(x) + 1`: a new tensor with the shape, dtype and device of `x`.

    It is differentiable like `sigmoid(x) + 1`: `requires_grad` follows `x`, and a backward
    pass through it gives `x` the gradient of `sigmoid(x) + 1`. Neither `x` nor any tensor
    that autograd saved for that backward pass is changed.
    """
    # TODO(inplace_autograd): write sigmoid_plus_one; the docstring above is the contract.
    raise NotImplementedError("inplace_autograd: sigmoid_plus_one")
