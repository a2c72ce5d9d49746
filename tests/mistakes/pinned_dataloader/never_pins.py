"""Never asks for pinned memory: batches for the GPU stay in pageable memory, so their copies
cannot run in the background.

Caught by: test_loader_kwargs_pins_for_an_accelerator, test_forced_pin_path_pins_every_batch
"""

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def loader_kwargs(device, *, num_workers=1):
    kwargs = _ref.loader_kwargs(device, num_workers=num_workers)
    kwargs.pop("pin_memory", None)
    return kwargs


def make_loader(dataset, batch_size, device, *, shuffle=True):
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, **loader_kwargs(device))
