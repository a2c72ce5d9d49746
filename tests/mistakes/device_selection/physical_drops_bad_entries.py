"""Silently drops entries that are not integers, the way a lenient parser hides a typo.

Caught by: test_physical_gpu_id_refuses_a_bad_entry_anywhere
"""

from reference.device_selection import *


def physical_gpu_id(logical, visible):
    if logical < 0:
        raise ValueError(f"negative index {logical}")
    if visible is None:
        return logical
    ids = [int(e) for e in visible.split(",") if e.strip().isdigit()]
    if logical >= len(ids):
        raise ValueError(f"no cuda:{logical} under CUDA_VISIBLE_DEVICES={visible!r}")
    return ids[logical]
