"""In-place ops and autograd: change tensors in place without breaking the gradients.

In-place operations (`fill_`, `sub_`, `+=`) save memory, but autograd needs to know about them:
every tensor carries a version counter (`t._version`) that each in-place change bumps, and
backward refuses to use a saved tensor whose version moved. Read docs/katas/inplace_autograd.md,
then fill in each function.

Check it:  python -m katas check inplace_autograd
Stuck?     python -m katas hint inplace_autograd
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn


def init_constant_(model: nn.Module, value: float) -> nn.Module:
    """Set every parameter of `model` to `value`, in place, and return `model` itself.

    "In place" matters: an optimizer built before this call holds the Parameter objects, so
    they must stay the very same objects, still leaves (`is_leaf`, no `grad_fn`), with the
    `requires_grad` they had (a frozen parameter is set too and stays frozen). A forward and
    backward pass must work afterwards.

    Autograd refuses an in-place change to a leaf that requires grad, unless you tell it that
    this change is not part of any computation. Do not use `.data` for that: a write through
    `.data` is invisible to the version counter (`p._version` does not move), so it also hides
    real mistakes. The tests check that each parameter's `_version` went up.

    Only parameters change: buffers such as BatchNorm's `running_mean` are not parameters.

    >>> model = init_constant_(nn.Linear(2, 1), 0.5)
    >>> model.weight
    Parameter containing:
    tensor([[0.5000, 0.5000]], requires_grad=True)
    """
    # TODO(inplace_autograd): fill each of model.parameters(), with autograd not recording.
    raise NotImplementedError("inplace_autograd: init_constant_")


def sgd_step_(params: Iterable[torch.Tensor], lr: float) -> None:
    """Take one hand-written SGD step: `p <- p - lr * p.grad` for every parameter, in place.

    - `params` is any iterable of parameters, often the generator `model.parameters()`, which
      can be iterated only once.
    - Update each parameter in place (its `_version` goes up, it stays the same leaf object),
      without autograd recording the update.
    - Then clear its grad: `backward()` adds into `.grad`, so a grad left behind would be added
      to the next step's. Setting `p.grad = None` (what `Optimizer.zero_grad()` does) and
      `p.grad.zero_()` are both accepted.
    - A parameter whose `.grad` is None took no part in the loss: leave it untouched.

    Return None, like the other in-place updates in torch.
    """
    # TODO(inplace_autograd): one pass over params; update in place, then clear the grad.
    raise NotImplementedError("inplace_autograd: sgd_step_")


def sigmoid_plus_one(x: torch.Tensor) -> torch.Tensor:
    """Return `torch.sigmoid(x) + 1`, with gradients autograd can compute.

    The derivative of sigmoid is `s * (1 - s)` where `s = sigmoid(x)`, so autograd saves the
    output `s` for backward. Adding 1 to `s` in place would overwrite what backward needs: torch
    notices through the version counter, but only when `backward()` runs. Make a new tensor
    instead, and leave `x` itself unchanged.

    `x` may or may not require grad; the result has `x`'s shape, dtype and device.
    """
    # TODO(inplace_autograd): one line, with no in-place operation in it.
    raise NotImplementedError("inplace_autograd: sigmoid_plus_one")
