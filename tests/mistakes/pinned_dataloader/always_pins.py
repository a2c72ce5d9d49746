"""Asks for `pin_memory=True` whatever the device, so a CPU loader makes the DataLoader warn that
there is no accelerator to pin for.

Caught by: test_loader_kwargs_is_empty_for_the_cpu, test_cpu_loader_does_not_warn
"""

from reference.pinned_dataloader import *


def loader_kwargs(device, *, num_workers=1):
    return {"num_workers": num_workers, "pin_memory": True}
