"""Off by one: `device_count() >= i` offers cuda:i on a machine that only has cuda:0..i-1.

Caught by: test_try_gpu_gives_that_gpu_only_if_it_exists
"""

from reference.device_selection import *


def try_gpu(i=0):
    if i < 0:
        raise ValueError(f"try_gpu({i}): negative index")
    return torch.device("cuda", i) if torch.cuda.device_count() >= i else torch.device("cpu")
