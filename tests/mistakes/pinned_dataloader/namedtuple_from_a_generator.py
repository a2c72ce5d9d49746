"""Rebuilds tuples with `type(batch)(generator)`, which works for a plain tuple but fails for a
namedtuple, whose fields are separate arguments.

Caught by: test_to_device_keeps_the_structure
"""

from reference.pinned_dataloader import *


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(
            device, non_blocking=batch.is_pinned() and torch.device(device).type != "cpu"
        )
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (tuple, list)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch
