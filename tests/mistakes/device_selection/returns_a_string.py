"""Returns the string "cuda:0" (or "cpu") instead of a torch.device.

Caught by: test_try_gpu_gives_that_gpu_only_if_it_exists, test_try_gpu_defaults_to_the_first_gpu
"""

from reference.device_selection import *


def try_gpu(i=0):
    if i < 0:
        raise ValueError(f"try_gpu({i}): negative index")
    return f"cuda:{i}" if torch.cuda.device_count() >= i + 1 else "cpu"
