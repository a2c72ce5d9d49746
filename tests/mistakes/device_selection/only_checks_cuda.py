"""Checks CUDA requests against the machine but hands out any other type unchecked, so
pick_device("mps") on Linux returns mps, a device this process cannot use.

Caught by: test_pick_device_rejects_an_accelerator_that_is_not_available
"""

from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    n = 0 if disable_cuda or not torch.cuda.is_available() else torch.cuda.device_count()
    if requested is None:
        return torch.device("cuda", 0) if n else torch.device("cpu")
    if not isinstance(requested, (str, torch.device)):
        raise TypeError(f"pick_device({requested!r}): not a str or a torch.device")
    try:
        device = torch.device(requested)
    except RuntimeError:
        raise ValueError(f"pick_device({requested!r}): not a device") from None
    if device.type == "cuda" and (device.index or 0) >= n:
        raise ValueError(f"pick_device({requested!r}): this process sees {n} GPU(s)")
    if device.type in ("cpu", "meta") and (device.index or 0) > 0:
        raise ValueError(f"pick_device({requested!r}): there is one {device.type} device")
    return device
