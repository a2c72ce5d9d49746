"""Turns recording off with `@torch.no_grad()` as a decorator on two small helpers; initialises
with `copy_` from a full tensor, steps with `add_(grad, alpha=-lr)`, and clears a gradient by
zeroing it in place rather than dropping it; computes `1 + torch.special.expit(x)`.
"""

from __future__ import annotations

import torch

from reference.inplace_autograd import _check_number


def _given_checks(model, value):
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"init_constant_: model must be an nn.Module, not {type(model).__name__}")
    _check_number("init_constant_", "value", value)


@torch.no_grad()
def _fill(p, value):
    p.copy_(torch.full_like(p, value))


@torch.no_grad()
def _step(p, lr):
    p.add_(p.grad, alpha=-lr)
    p.grad.zero_()


def init_constant_(model, value):
    _given_checks(model, value)  # the stub's given code
    for p in model.parameters():
        _fill(p, value)
    return model


def sgd_step_(params, lr):
    _check_number("sgd_step_", "lr", lr)  # the stub's given code
    for p in [p for p in params if p.grad is not None]:
        _step(p, lr)


def sigmoid_plus_one(x):
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError("sigmoid_plus_one: x must be a floating-point tensor")
    return 1 + torch.special.expit(x)
