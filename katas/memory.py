"""Memory: what training keeps, and how to fit.

A forward pass keeps tensors alive for the backward pass: a layer's input, an activation's
output. On a GPU they usually take more memory than the model itself, and they grow with the
batch. When a step does not fit ("CUDA out of memory"), three skills answer: measure what the
forward pass keeps, split the batch into micro-batches that add up to the same step, and
recompute activations in the backward pass instead of keeping them. The last function finds
the largest batch that fits, and recovers from the out-of-memory error on the way.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs memory

Check it:  python -m katas check memory
Stuck?     python -m katas hint memory   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def activation_bytes(model: nn.Module, *inputs: torch.Tensor) -> int:
    """The bytes that `model(*inputs)` keeps alive for its backward pass, beyond the model's
    own parameters and buffers, as a Python int.

    What counts is memory: each storage counts once, with all its bytes, however many tensors
    or views of it are kept. It runs the forward pass once and never the backward pass, and
    measuring changes nothing the pass keeps: every tensor it saves stays alive until it ends.
    It leaves nothing behind: no hook it installed is still installed after it returns or
    raises, and nothing the forward pass made is still alive after it returns.
    """
    # TODO(memory): find what the forward pass keeps, and count its memory
    raise NotImplementedError("memory: activation_bytes")


def accumulate(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
    *,
    micro_batch: int,
) -> float:
    """One optimizer step on the batch `inputs`, `targets` (one row per sample), computed in
    micro-batches of at most `micro_batch` rows; return the whole batch's mean loss as a
    Python float.

    `loss_fn(output, target)` is the mean loss of the rows it is given. The step's gradients
    equal those of one step on the whole batch with a mean loss, whatever was in `.grad`
    before, and however the rows divide (the last micro-batch may be smaller). Only one
    micro-batch's activations are alive at a time. Nothing is read back from the device
    until the last micro-batch is done, and then once.

    ValueError for `micro_batch < 1`, an empty batch, or `inputs` and `targets` of different
    lengths, before any gradient is touched: those checks are written for you.
    """
    if micro_batch < 1:
        raise ValueError(f"accumulate: micro_batch must be at least 1, got {micro_batch}")
    n = len(inputs)
    if n == 0:
        raise ValueError("accumulate: the batch is empty")
    if len(targets) != n:
        raise ValueError(f"accumulate: {n} inputs but {len(targets)} targets")
    # TODO(memory): one step with the whole batch's gradients, a micro-batch at a time
    raise NotImplementedError("memory: accumulate")


def checkpointed(blocks: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """`blocks(x)`, with each block's inner activations recomputed in the backward pass
    instead of kept: only what goes into each block stays alive between the passes.

    The output and the gradients (of the parameters, and of `x` when it requires grad) are
    those of `blocks(x)`, random layers such as dropout included. Gradients reach the
    parameters even when `x` does not require grad.
    """
    # TODO(memory): run the blocks so that each one's inner activations are recomputed
    raise NotImplementedError("memory: checkpointed")


def largest_batch(step: Callable[[int], object], batch_size: int, *, min_size: int = 1) -> int:
    """Find a batch size that fits: call `step(n)` with `n = batch_size`, and while it raises
    `torch.OutOfMemoryError`, again with half the size (rounded down, never below
    `min_size`). Return the first size for which `step` returned.

    Everything a failed attempt allocated is free before the next attempt starts, and on CUDA
    the allocator's cached blocks go back to the driver. Any other exception propagates at
    once. If even `min_size` does not fit, its out-of-memory error propagates.

    ValueError, before `step` is called, for sizes below 1 or `min_size > batch_size` (written
    for you).
    """
    if batch_size < 1 or min_size < 1:
        raise ValueError(
            f"largest_batch: sizes must be at least 1, got batch_size={batch_size}, "
            f"min_size={min_size}"
        )
    if min_size > batch_size:
        raise ValueError(
            f"largest_batch: min_size={min_size} is larger than batch_size={batch_size}"
        )
    # TODO(memory): try smaller sizes, each with the last attempt's memory free
    raise NotImplementedError("memory: largest_batch")
