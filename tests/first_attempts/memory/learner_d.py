"""Measures the saved tensors' storages with a pack hook that hands each tensor back as it is.

Written from: the kata page and the stub only.
Message: still alive after a garbage collection

Written by a learner (a data scientist who trains from
tutorials) as a first attempt, before any check, on 2026-11-27 after the contracts were cut
to what must hold; kept as written.
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
    own = {t.untyped_storage().data_ptr() for t in model.parameters()}
    own |= {t.untyped_storage().data_ptr() for t in model.buffers()}
    saved: dict[int, torch.UntypedStorage] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        s = t.untyped_storage()
        if s.data_ptr() not in own:
            saved[s.data_ptr()] = s
        return t  # keep exactly what autograd would keep

    def unpack(t: torch.Tensor) -> torch.Tensor:
        return t

    try:
        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = model(*inputs)
        total = sum(s.nbytes() for s in saved.values())
        del out
        return int(total)
    finally:
        saved.clear()


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
    optimizer.zero_grad()
    total = None
    for start in range(0, n, micro_batch):
        x = inputs[start : start + micro_batch]
        y = targets[start : start + micro_batch]
        # scale each micro-batch's mean so the sum is the whole batch's mean
        loss = loss_fn(model(x), y) * (len(x) / n)
        loss.backward()
        part = loss.detach()
        total = part if total is None else total + part
        del loss
    optimizer.step()
    return float(total.item())


def checkpointed(blocks: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """`blocks(x)`, with each block's inner activations recomputed in the backward pass
    instead of kept: only what goes into each block stays alive between the passes. The
    output, and every gradient the backward pass computes, are those of `blocks(x)`.
    """
    from torch.utils.checkpoint import checkpoint

    for block in blocks:
        x = checkpoint(block, x, use_reentrant=False)
    return x


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
    import gc

    n = batch_size
    while True:
        failed = False
        try:
            step(n)
            return n
        except torch.OutOfMemoryError:
            if n <= min_size:
                raise
            failed = True
        # outside the except clause: the exception (and its traceback, which holds the
        # failed step's frame and its tensors) is gone now
        if failed:
            gc.collect()
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            n = max(n // 2, min_size)
