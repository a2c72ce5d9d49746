"""Hands the saved tensor itself back from the pack hook: a saved output then holds its own
grad_fn, a reference cycle that outlives the call (torch's saved_tensors_hooks docs warn
against it), so the activations it measured are never freed.

Caught by: test_activation_bytes_keeps_nothing_alive
"""

import torch

from reference.memory import *


def activation_bytes(model, *inputs):
    owned = {t.untyped_storage().data_ptr() for t in (*model.parameters(), *model.buffers())}
    kept = {}

    def pack(t):
        key = t.untyped_storage().data_ptr()
        if key not in owned:
            kept[key] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)
    return sum(kept.values())
