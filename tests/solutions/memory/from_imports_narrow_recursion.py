"""Imports names with `from` (`saved_tensors_hooks`, `checkpoint`, `OutOfMemoryError`,
`collect`); counts storages by (device, address) pairs in a set; takes micro-batches with
`narrow` and reads the total with `tolist()`; checkpoints by recursion over the blocks; and
empties the cache through `torch.accelerator` (only where there is one).
"""

from gc import collect

import torch
from torch import OutOfMemoryError
from torch.autograd.graph import saved_tensors_hooks
from torch.utils.checkpoint import checkpoint


def activation_bytes(model, *inputs):
    def where(t):
        return (t.device, t.untyped_storage().data_ptr())

    owned = {where(t) for t in model.parameters()} | {where(t) for t in model.buffers()}
    seen, total = set(), 0

    def pack(t):
        nonlocal total
        key = where(t)
        if key not in owned and key not in seen:
            seen.add(key)
            total += t.untyped_storage().nbytes()
        return t.detach()

    with saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)
    return total


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    rows = inputs.size(0)
    if micro_batch < 1:
        raise ValueError("accumulate: micro_batch must be positive")
    if rows == 0:
        raise ValueError("accumulate: no rows")
    if targets.size(0) != rows:
        raise ValueError("accumulate: inputs and targets differ in length")
    optimizer.zero_grad()
    running = torch.zeros((), dtype=inputs.dtype, device=inputs.device)
    start = 0
    while start < rows:
        size = min(micro_batch, rows - start)
        x, y = inputs.narrow(0, start, size), targets.narrow(0, start, size)
        loss = loss_fn(model(x), y) * size / rows
        loss.backward()
        running += loss.detach()
        start += size
    optimizer.step()
    return running.tolist()


def checkpointed(blocks, x):
    if len(blocks) == 0:
        return x
    return checkpointed(blocks[1:], checkpoint(blocks[0], x, use_reentrant=False))


def largest_batch(step, batch_size, *, min_size=1):
    if min(batch_size, min_size) < 1:
        raise ValueError("largest_batch: sizes must be at least 1")
    if min_size > batch_size:
        raise ValueError("largest_batch: min_size is larger than batch_size")
    n = batch_size
    while True:
        failed = False
        try:
            step(n)
        except OutOfMemoryError:
            if n == min_size:
                raise
            failed = True
        if not failed:
            return n
        collect()
        if torch.accelerator.is_available():  # without one, empty_cache() raises
            torch.accelerator.empty_cache()
        n = max(n // 2, min_size)
