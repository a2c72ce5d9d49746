"""Builds the DataLoader without `**loader_kwargs(device)`, so no loader ever pins or uses
workers, whatever the device.

Caught by: test_make_loader_uses_loader_kwargs, test_forced_pin_path_pins_every_batch
"""

from reference.pinned_dataloader import *


def make_loader(dataset, batch_size, device, *, shuffle=True):
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)
