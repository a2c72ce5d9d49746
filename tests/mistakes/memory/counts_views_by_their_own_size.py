"""Counts each saved tensor by its own elements (`numel() * element_size()`): a saved view of
a larger tensor keeps all of that tensor's storage alive, not just the elements it shows.

Caught by: test_activation_bytes_counts_each_kept_storage_once
"""

import torch

from reference.memory import *


def activation_bytes(model, *inputs):
    owned = {t.untyped_storage().data_ptr() for t in (*model.parameters(), *model.buffers())}
    kept = {}

    def pack(t):
        key = t.untyped_storage().data_ptr()
        if key not in owned:
            kept[key] = max(kept.get(key, 0), t.numel() * t.element_size())
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(*inputs)
    return sum(kept.values())
