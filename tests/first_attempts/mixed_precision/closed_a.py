"""Asks torch.cuda.is_bf16_supported() for the GPU it is given (the only GPU question the page
shows), clips to max_norm times the scale read through scaler.scale of a one.

Written from: the kata page and the stub only.
Message: is the answer for the current GPU

Written by a learner (a student after the 60-minute blitz only, who writes an attempt with the
torch the blitz teaches and the names the page shows, and lets the checker answer) as a first
attempt, before any check, on 2026-11-27; kept as written.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

_SPELLINGS = "'cpu', 'cuda' or 'cuda:1'"


def _device(func: str, device: str | torch.device) -> torch.device:
    """`device` parsed and checked: the CPU, or a CUDA GPU this machine has."""
    if isinstance(device, torch.device):
        parsed = device
    elif isinstance(device, str):
        try:
            parsed = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{func}({device!r}): not a device torch understands; try {_SPELLINGS}"
            ) from None
    else:
        raise TypeError(f"{func}: device must be a str or a torch.device, not {device!r}")
    if parsed.type == "cpu":
        return parsed
    if parsed.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (parsed.index or 0) >= count:
            raise ValueError(
                f"{func}({str(device)!r}): no such GPU here; this machine has {count} CUDA "
                "device(s)"
            )
        return parsed
    raise ValueError(
        f"{func}({str(device)!r}): this kata trains in mixed precision on the CPU or a CUDA "
        f"GPU only; try {_SPELLINGS}"
    )


def autocast_dtype(device: str | torch.device) -> torch.dtype:
    """The 16-bit type to train in on `device`: bfloat16 on the CPU; on a CUDA GPU (for a bare
    `cuda`, the current one), bfloat16 if that GPU computes in it natively, else float16.

    Bad arguments are refused by the given checks, and the CPU's answer is given too.
    """
    parsed = _device("autocast_dtype", device)
    if parsed.type == "cpu":
        return torch.bfloat16
    # TODO(mixed_precision): decide which 16-bit type the GPU `parsed` computes in natively
    # The page shows only torch.cuda.is_bf16_supported(), which answers for the *current*
    # GPU and says "supports", not "natively". I don't know how to ask for the compute
    # capability (>= 8.0 would be what I want) or for a GPU other than the current one.
    if torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float16


def make_scaler(device: str | torch.device, dtype: torch.dtype) -> torch.amp.GradScaler:
    """A gradient scaler for `device` that scales only when `dtype` is float16, and otherwise
    passes everything through. Bad arguments are refused by the given checks.
    """
    parsed = _device("make_scaler", device)
    # TODO(mixed_precision): make the scaler for the type of `parsed`, scaling only what needs it
    # unsure of GradScaler's signature: I guess the device type goes first, as for autocast
    return torch.amp.GradScaler(parsed.type, enabled=(dtype == torch.float16))


def amp_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    dtype: torch.dtype,
    max_norm: float | None = None,
) -> torch.Tensor:
    """One training step on the batch `x`, `y`, on `x`'s device: the matrix products in
    `dtype`, and what lasts from step to step (the parameters, their gradients, the
    optimizer's state) in float32; the model itself is never converted.

    The optimizer steps on the gradients of the loss, `loss_fn(model(x), y)`; with `max_norm`,
    on those gradients shrunk, all by one factor, to a total 2-norm of `max_norm` when theirs
    is larger. With an enabled `scaler`, a step whose gradients overflow (inf or NaN) changes
    neither the parameters nor the optimizer's state. After the step, the scaler's scale is
    where its own policy puts it, and no gradient is left for the next step.

    Returns the loss as a float32 tensor on `x`'s device, detached; nothing is read back to
    the host.
    """
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()  # a disabled scaler hands the loss back as it is
    # TODO(mixed_precision): with `max_norm`, clip the gradients to a total 2-norm of `max_norm`
    if max_norm is not None:
        # The gradients here are those of scale * loss, so their norm is `scale` times the
        # true one. Clipping the scaled gradients to max_norm * scale shrinks them by the same
        # factor as clipping the true ones to max_norm would (scaler.step must divide by the
        # scale again, or training would blow up). I read the scale without .item() (no
        # read-back to the host): a disabled scaler hands the 1.0 back as it is.
        scale = scaler.scale(torch.ones((), device=x.device))
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm * scale)
    scaler.step(optimizer)  # skips optimizer.step() when a gradient is inf or NaN
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach().float()
