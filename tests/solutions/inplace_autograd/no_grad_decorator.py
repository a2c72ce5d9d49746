"""Turns recording off with `@torch.no_grad()` as a decorator on two small helpers; initialises
with `copy_` from a full tensor, steps with `add_(grad, alpha=-lr)`, and clears a gradient by
zeroing it in place rather than dropping it; computes `1 + torch.special.expit(x)`.
"""

from __future__ import annotations

import torch


@torch.no_grad()
def _fill(p, value):
    p.copy_(torch.full_like(p, value))


@torch.no_grad()
def _step(p, lr):
    p.add_(p.grad, alpha=-lr)
    p.grad.zero_()


def init_constant_(model, value):
    for p in model.parameters():
        _fill(p, value)
    return model


def sgd_step_(params, lr):
    for p in [p for p in params if p.grad is not None]:
        _step(p, lr)


def sigmoid_plus_one(x):
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError("sigmoid_plus_one: x must be a floating-point tensor")
    return 1 + torch.special.expit(x)
