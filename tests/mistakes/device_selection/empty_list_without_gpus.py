"""Returns [] from try_all_gpus() on a machine without GPUs, leaving callers nothing to run on.

Caught by: test_try_all_gpus_lists_every_gpu_or_the_cpu
"""

from reference.device_selection import *


def try_all_gpus():
    return [torch.device("cuda", k) for k in range(torch.cuda.device_count())]
