"""Writes sigmoid by hand, `1 / (1 + exp(-x))`, which is right wherever `exp(-x)` does not
overflow (the contract's range, [-10, 10]); initialises through `nn.init.constant_` and steps
with `torch.optim.SGD`'s arithmetic written out under `torch.no_grad()`.
"""

from __future__ import annotations

import torch
from torch import nn

from reference.inplace_autograd import _check_number


def _given_checks(model, value):
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"init_constant_: model must be an nn.Module, not {type(model).__name__}")
    _check_number("init_constant_", "value", value)


def init_constant_(model, value):
    _given_checks(model, value)  # the stub's given code
    for p in model.parameters():
        nn.init.constant_(p, value)
    return model


def sgd_step_(params, lr):
    _check_number("sgd_step_", "lr", lr)  # the stub's given code
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p.copy_(p - lr * p.grad)
                p.grad = None


def sigmoid_plus_one(x):
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError("sigmoid_plus_one: x must be a floating-point tensor")
    return 1 / (1 + torch.exp(-x)) + 1
