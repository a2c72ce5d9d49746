"""Steps with torch's own `torch.optim.SGD` (no momentum), built on the parameters that have a
gradient and cleared with its `zero_grad()`; initialises module by module
(`model.modules()`, each one's own parameters) with `fill_` under `torch.no_grad()`; adds a
tensor of ones.
"""

from __future__ import annotations

import torch

from reference.inplace_autograd import _check_number


def _given_checks(model, value):
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"init_constant_: model must be an nn.Module, not {type(model).__name__}")
    _check_number("init_constant_", "value", value)


def init_constant_(model, value):
    _given_checks(model, value)  # the stub's given code
    with torch.no_grad():
        for module in model.modules():
            for p in module.parameters(recurse=False):
                p.fill_(value)
    return model


def sgd_step_(params, lr):
    _check_number("sgd_step_", "lr", lr)  # the stub's given code
    with_grad = [p for p in params if p.grad is not None]
    if not with_grad:
        return
    optimizer = torch.optim.SGD(with_grad, lr=lr)
    optimizer.step()
    optimizer.zero_grad()


def sigmoid_plus_one(x):
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError("sigmoid_plus_one: x must be a floating-point tensor")
    return torch.sigmoid(x) + torch.ones_like(x)
