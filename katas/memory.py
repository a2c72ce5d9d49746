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
    """The bytes of memory that `model(*inputs)` keeps alive for its backward pass, beyond the
    model's own parameters and buffers, as a Python int: each storage counted once, with all
    its bytes.

    It runs the forward pass once, with no backward pass, and measuring changes nothing that
    pass keeps. It leaves nothing behind, whether it returns or raises.
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

    `loss_fn(output, target)` is the mean loss of the rows it is given. The optimizer steps on
    exactly the gradients of the whole batch's mean loss. Only one micro-batch's activations
    are alive at a time, and the returned loss is the one value read back from the device.
    Bad arguments are refused by the given checks.
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
    instead of kept: only what goes into each block stays alive between the passes. The
    output, and every gradient the backward pass computes, are those of `blocks(x)`.
    """
    # TODO(memory): run the blocks so that each one's inner activations are recomputed
    raise NotImplementedError("memory: checkpointed")


def largest_batch(step: Callable[[int], object], batch_size: int, *, min_size: int = 1) -> int:
    """Find a batch size that fits: call `step(n)` with `n = batch_size`, and while it raises
    `torch.OutOfMemoryError`, again with half the size (rounded down, never below
    `min_size`). Return the first size for which `step` returned.

    Each attempt starts with nothing of the failed ones still allocated (on CUDA, their memory
    is back with the driver). Any other error, and the out-of-memory error of `min_size`,
    propagates. Bad sizes are refused by the given checks.
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
