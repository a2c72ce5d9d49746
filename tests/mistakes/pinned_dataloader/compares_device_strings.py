"""Compares the device with the string "cpu", so `torch.device("cpu")` and "cpu:0" count as
accelerators and get pinned memory.

Caught by: test_loader_kwargs_is_empty_for_the_cpu
"""

from reference.pinned_dataloader import *


def loader_kwargs(device, *, num_workers=1):
    if device == "cpu":
        return {}
    return {"num_workers": num_workers, "pin_memory": True}
