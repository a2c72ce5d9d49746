"""Reads what the graph keeps by walking it from the output (each node's `_saved_*` tensors,
a custom Function's `saved_tensors`) instead of hooks; splits the batch with `torch.split`
and backpropagates each micro-batch's summed loss, dividing the gradients by the batch size
afterwards; makes the reentrant checkpoint work by giving it an input that requires grad;
and retries largest_batch by recursion.
"""

import gc

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def _tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, tuple | list):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)


def _saved(node):
    """The tensors one autograd node keeps for backward."""
    if hasattr(node, "saved_tensors"):  # a custom autograd.Function
        yield from node.saved_tensors
    for name in dir(node):
        if name.startswith("_saved_"):
            yield from _tensors(getattr(node, name))


def activation_bytes(model: nn.Module, *inputs: torch.Tensor) -> int:
    owned = {t.untyped_storage().data_ptr() for t in (*model.parameters(), *model.buffers())}
    output = model(*inputs)
    todo = [t.grad_fn for t in _tensors(output) if t.grad_fn is not None]
    del output
    seen_nodes, kept = set(), {}
    while todo:
        node = todo.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        for t in _saved(node):
            storage = t.untyped_storage()
            if storage.data_ptr() not in owned:
                kept[storage.data_ptr()] = storage.nbytes()
        todo.extend(next_node for next_node, _ in node.next_functions)
    return sum(kept.values())


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    if micro_batch < 1:
        raise ValueError(f"accumulate: micro_batch={micro_batch}; it must be at least 1")
    if len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError(f"accumulate: {len(inputs)} inputs and {len(targets)} targets")
    n = len(inputs)
    optimizer.zero_grad()
    sums = []
    for x, y in zip(
        torch.split(inputs, micro_batch), torch.split(targets, micro_batch), strict=True
    ):
        summed = loss_fn(model(x), y) * len(x)  # the sum of this micro-batch's row losses
        summed.backward()
        sums.append(summed.detach())
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p.grad /= n
    optimizer.step()
    return (torch.stack(sums).sum() / n).item()


def checkpointed(blocks, x):
    if not x.requires_grad:
        # The reentrant variant passes gradients only through inputs that require grad; x
        # needs none, so an input that asks for one costs nothing and lets them through.
        x = x.detach().requires_grad_()
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=True)
    return x


def _fits(step, n: int, min_size: int) -> bool:
    try:
        step(n)
    except torch.OutOfMemoryError:
        if n == min_size:
            raise
        return False
    return True


def largest_batch(step, batch_size, *, min_size=1):
    if not 1 <= min_size <= batch_size:
        raise ValueError(
            f"largest_batch: need 1 <= min_size <= batch_size, got {min_size}, {batch_size}"
        )
    if _fits(step, batch_size, min_size):
        return batch_size
    gc.collect()
    torch.cuda.empty_cache()
    return largest_batch(step, max(batch_size // 2, min_size), min_size=min_size)
