"""Checks that CUDA is available but not the index, so cuda:7 is accepted on a 2-GPU host.

Caught by: test_pick_device_rejects_a_gpu_that_does_not_exist
"""

from reference.device_selection import *


def pick_device(requested=None, *, disable_cuda=False):
    use_cuda = torch.cuda.is_available() and not disable_cuda
    if requested is None:
        return torch.device("cuda", 0) if use_cuda else torch.device("cpu")
    try:
        device = torch.device(requested)
    except RuntimeError:
        raise ValueError(f"pick_device({requested!r}): not a device") from None
    if device.type == "cuda" and not use_cuda:
        raise ValueError(f"pick_device({requested!r}): no CUDA device, only cpu")
    return device
