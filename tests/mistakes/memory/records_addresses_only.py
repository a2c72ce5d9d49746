"""Records each saved tensor's storage address and size, and hands the graph back only that
address: nothing holds the saved tensors any more, so they are freed during the forward pass
and their memory can go to the next tensor made, at the same address. Whether it does is the
allocator's choice: four `exp(x) * 0.5` in a row on 1,000 float32 counted 12,000 bytes instead
of 16,000 on the CPU here, and a GPU's caching allocator reuses a freed block at once.

Caught by: test_activation_bytes_keeps_what_the_forward_pass_keeps
"""

import torch

from reference.memory import *


def activation_bytes(model, *inputs):
    owned = {t.untyped_storage().data_ptr() for t in (*model.parameters(), *model.buffers())}
    kept = {}

    def pack(t):
        key = (t.device, t.untyped_storage().data_ptr())
        if key[1] not in owned:
            kept[key] = t.untyped_storage().nbytes()
        return key  # the backward pass never runs, so nothing needs the tensor back

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda key: None):
        model(*inputs)
    return sum(kept.values())
