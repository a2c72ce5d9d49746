"""Follows the old tutorials: `torch.set_default_tensor_type(torch.cuda.FloatTensor)` for CUDA,
`torch.FloatTensor` otherwise, and `.to(device)` for the rest. It is deprecated and warns, it
forces the default dtype to float32, and there is no tensor type for `meta`, so the model is
built on the CPU and copied.

Caught by: test_build_on_builds_straight_on_the_device, test_build_on_restores_the_default_device
"""

from reference.default_device import *


def build_on(device, factory):
    device = torch.device(device)
    cuda = device.type == "cuda"
    torch.set_default_tensor_type(torch.cuda.FloatTensor if cuda else torch.FloatTensor)
    try:
        return factory().to(device)
    finally:
        torch.set_default_tensor_type(torch.FloatTensor)
