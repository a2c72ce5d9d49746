"""Memory: what training keeps, and how to fit.

A forward pass keeps tensors alive for the backward pass: a layer's input, an activation's
output. On a GPU they usually take more memory than the model itself, and they grow with the
batch. When a step does not fit ("CUDA out of memory"), three skills answer: measure what the
forward pass keeps, split the batch into micro-batches that add up to the same step, and
recompute activations in the backward pass instead of keeping them. The last function finds
the largest batch that fits, and recovers from the out-of-memory error on the way.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


# BEGIN SOLUTION
def _key(t: torch.Tensor) -> tuple[torch.device, int]:
    """Which storage `t` lives in: its device and the address where that storage starts."""
    return t.device, t.untyped_storage().data_ptr()


# END SOLUTION


def activation_bytes(model: nn.Module, *inputs: torch.Tensor) -> int:
    """The bytes of memory that `model(*inputs)` keeps alive for its backward pass, beyond the
    model's own parameters and buffers, as a Python int: each storage counted once, with all
    its bytes.

    It runs the forward pass once, with no backward pass, and measuring changes nothing that
    pass keeps. It leaves nothing behind, whether it returns or raises.
    """
    # BEGIN SOLUTION: find what the forward pass keeps, and count its memory
    owned = {_key(t) for t in (*model.parameters(), *model.buffers())}
    kept: dict[tuple[torch.device, int], int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        key = _key(t)
        if key not in owned:
            kept[key] = t.untyped_storage().nbytes()
        # The graph keeps what this returns. Never t itself: a saved output would then hold
        # its own grad_fn, a cycle that outlives the call (see saved_tensors_hooks' warning).
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)  # the output, and with it the graph, is dropped at once
    return sum(kept.values())
    # END SOLUTION


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
    # BEGIN SOLUTION: one step with the whole batch's gradients, a micro-batch at a time
    optimizer.zero_grad()
    total = None
    for start in range(0, n, micro_batch):
        x = inputs[start : start + micro_batch]
        y = targets[start : start + micro_batch]
        share = len(x) / n  # this micro-batch's part of the whole batch's mean
        loss = loss_fn(model(x), y) * share
        loss.backward()  # frees this micro-batch's activations
        part = loss.detach()
        total = part if total is None else total + part
    optimizer.step()
    return total.item()  # the one read-back
    # END SOLUTION


def checkpointed(blocks: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """`blocks(x)`, with each block's inner activations recomputed in the backward pass
    instead of kept: only what goes into each block stays alive between the passes. The
    output, and every gradient the backward pass computes, are those of `blocks(x)`.
    """
    # BEGIN SOLUTION: run the blocks so that each one's inner activations are recomputed
    from torch.utils.checkpoint import checkpoint

    for block in blocks:
        x = checkpoint(block, x, use_reentrant=False)
    return x
    # END SOLUTION


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
    # BEGIN SOLUTION: try smaller sizes, each with the last attempt's memory free
    import gc

    n = batch_size
    while True:
        try:
            step(n)
            return n
        except torch.OutOfMemoryError:
            if n == min_size:
                raise
        # Out of the except block: the error and its traceback, which held the failed
        # attempt's frames and so its tensors, are gone. Free what cycles still hold, and
        # hand the allocator's cache back to the driver.
        gc.collect()
        torch.cuda.empty_cache()  # does nothing unless CUDA was initialised
        n = max(n // 2, min_size)
    # END SOLUTION
