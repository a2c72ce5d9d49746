"""Pins only when this machine has an accelerator, so the options no longer follow the device
asked for, and a loader for CUDA on a CPU-only host silently skips what the DataLoader would
have warned about.

Caught by: test_loader_kwargs_pins_for_an_accelerator, test_gpu_loader_warns_without_a_gpu
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def loader_kwargs(device, *, num_workers=1):
    if not torch.accelerator.is_available():
        return {}
    return _ref.loader_kwargs(device, num_workers=num_workers)


def make_loader(dataset, batch_size, device, *, shuffle=True):
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, **loader_kwargs(device))
