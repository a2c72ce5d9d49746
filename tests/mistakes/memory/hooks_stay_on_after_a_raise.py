"""Installs the saved-tensors hooks by hand and takes them off only when the forward pass
succeeds: after a model raises, every later forward pass still goes through them.

Caught by: test_activation_bytes_leaves_no_hook_after_raising
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
        return t.detach()

    hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t)
    hooks.__enter__()
    model(*inputs)
    hooks.__exit__(None, None, None)
    return sum(kept.values())
