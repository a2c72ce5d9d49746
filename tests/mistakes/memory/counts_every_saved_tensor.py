"""Adds up the bytes of every saved tensor: a tensor saved by two operations (a ReLU's output,
which the next Linear keeps too) is counted twice, though it is in memory once.

Caught by: test_activation_bytes_counts_each_kept_storage_once, test_activation_bytes_of_an_mlp
"""

import torch

from reference.memory import *


def activation_bytes(model, *inputs):
    owned = {t.untyped_storage().data_ptr() for t in (*model.parameters(), *model.buffers())}
    total = 0

    def pack(t):
        nonlocal total
        if t.untyped_storage().data_ptr() not in owned:
            total += t.untyped_storage().nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)
    return total
