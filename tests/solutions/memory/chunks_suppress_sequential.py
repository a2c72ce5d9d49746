"""Keeps the saved storages themselves while measuring and drops the model's own afterwards;
cuts the batch with `torch.chunk`, scaling each loss with `.mul`, and reads the total with
`float()`; checkpoints with `checkpoint_sequential`, whose last segment is not checkpointed
(so it is handed one more, empty block); and walks a list of sizes in largest_batch, with
`contextlib.suppress` for the sizes that may fail.
"""

import contextlib
import gc
import math

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint_sequential


def activation_bytes(model, *inputs):
    storages = {}

    def pack(t):
        s = t.untyped_storage()
        storages[s.data_ptr()] = s.nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)
    for t in (*model.parameters(), *model.buffers()):
        storages.pop(t.untyped_storage().data_ptr(), None)
    return sum(storages.values())


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1 or inputs.shape[0] == 0 or inputs.shape[0] != targets.shape[0]:
        raise ValueError(
            f"accumulate: micro_batch={micro_batch}, {inputs.shape[0]} inputs, "
            f"{targets.shape[0]} targets"
        )
    n = inputs.shape[0]
    k = math.ceil(n / micro_batch)
    optimizer.zero_grad(set_to_none=False)
    parts = []
    for x, y in zip(inputs.chunk(k), targets.chunk(k), strict=True):
        loss = loss_fn(model(x), y).mul(x.shape[0] / n)
        loss.backward()
        parts.append(loss.detach())
    optimizer.step()
    return float(sum(parts))


def checkpointed(blocks, x):
    # checkpoint_sequential runs its last segment as it is: make that an Identity.
    padded = nn.Sequential(*blocks, nn.Identity())
    return checkpoint_sequential(padded, len(padded), x, use_reentrant=False)


def largest_batch(step, batch_size, *, min_size=1):
    if batch_size < 1 or min_size < 1 or min_size > batch_size:
        raise ValueError(f"largest_batch: batch_size={batch_size}, min_size={min_size}")
    sizes = [batch_size]
    while sizes[-1] > min_size:
        sizes.append(max(sizes[-1] // 2, min_size))
    for n in sizes[:-1]:
        with contextlib.suppress(torch.OutOfMemoryError):
            step(n)
            return n
        gc.collect()
        torch.cuda.empty_cache()
    step(sizes[-1])  # the last chance: its error is the caller's
    return sizes[-1]
