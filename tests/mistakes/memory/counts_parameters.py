"""Counts every saved tensor's storage, the model's own weights included: a Linear keeps its
weight for the backward pass, but the weight exists anyway; it is not activation memory.

Caught by: test_activation_bytes_counts_each_kept_storage_once, test_activation_bytes_of_an_mlp
"""

import torch

from reference.memory import *


def activation_bytes(model, *inputs):
    kept = {}

    def pack(t):
        kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)
    return sum(kept.values())
