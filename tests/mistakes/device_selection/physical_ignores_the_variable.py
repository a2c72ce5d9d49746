"""Ignores CUDA_VISIBLE_DEVICES: returns the logical index as if it were the physical id.

Caught by: test_physical_gpu_id_reads_the_list
"""

from reference.device_selection import *


def physical_gpu_id(logical, visible):
    if logical < 0:
        raise ValueError(f"negative index {logical}")
    return logical
