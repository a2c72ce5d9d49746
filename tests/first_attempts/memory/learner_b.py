"""Measures the saved tensors with a pack hook that hands each tensor back as it is.

Written from: the kata page and the stub only.
Message: still alive after a garbage collection

Written by a learner (a student after one PyTorch
tutorial) as a first attempt, before any check; kept as written.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def activation_bytes(model: nn.Module, *inputs: torch.Tensor) -> int:
    """The bytes that `model(*inputs)` keeps alive for its backward pass, beyond the model's
    own parameters and buffers, as a Python int.

    What counts is memory: each storage counts once, with all its bytes, however many tensors
    or views of it are kept. It runs the forward pass once and never the backward pass, and
    measuring changes nothing the pass keeps: every tensor it saves stays alive until it ends.
    It leaves nothing behind: no hook it installed is still installed after it returns or
    raises, and nothing the forward pass made is still alive after it returns.
    """
    # the model's own storages don't count
    own = set()
    for t in list(model.parameters()) + list(model.buffers()):
        own.add((t.device, t.untyped_storage().data_ptr()))

    saved: list[torch.Tensor] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        saved.append(t)  # keep a reference so nothing is freed while we measure
        return t

    def unpack(t: torch.Tensor) -> torch.Tensor:
        return t

    # the context manager removes the hooks again, even if the forward pass raises
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = model(*inputs)

    seen = set()
    total = 0
    for t in saved:
        storage = t.untyped_storage()
        key = (t.device, storage.data_ptr())
        if key in own or key in seen:
            continue
        seen.add(key)
        total += storage.nbytes()

    # drop the graph and everything it kept (locals go anyway when we return)
    del out
    saved.clear()
    return int(total)


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
    optimizer.zero_grad()  # whatever was in .grad before must not count
    total = None
    for xb, yb in zip(inputs.split(micro_batch), targets.split(micro_batch)):
        # mean over this micro-batch, weighted by its share of the whole batch, so the sum
        # of the micro-batch losses (and of their gradients) is the whole batch's mean
        loss = loss_fn(model(xb), yb) * (len(xb) / n)
        loss.backward()  # frees this micro-batch's graph; gradients add up in .grad
        part = loss.detach()
        total = part if total is None else total + part
        del loss  # nothing of this micro-batch stays alive into the next one
    optimizer.step()
    return total.item()  # the only read-back


def checkpointed(blocks: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """`blocks(x)`, with each block's inner activations recomputed in the backward pass
    instead of kept: only what goes into each block stays alive between the passes.

    The output and the gradients (of the parameters, and of `x` when it requires grad) are
    those of `blocks(x)`, random layers such as dropout included. Gradients reach the
    parameters even when `x` does not require grad.
    """
    # use_reentrant=False: gradients reach the parameters even if x needs no grad;
    # the RNG state is saved and restored by default, so dropout drops the same elements
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=False)
    return x


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
    n = batch_size
    while True:
        try:
            step(n)
            return n
        except torch.OutOfMemoryError:
            if n <= min_size:
                raise
            # no `as err`: inside this clause the error (and its traceback, with the frame
            # of `step` and the tensors it made) is still alive, so free things below
        gc.collect()  # in case the traceback's frames are in a reference cycle
        if torch.cuda.is_available():
            torch.cuda.empty_cache()  # hand the cached blocks back to the driver
        n = max(n // 2, min_size)
