"""Stops at the first bad entry like CUDA's own parser: "0,x,2" silently becomes "0".

Caught by: test_physical_gpu_id_refuses_a_bad_entry_anywhere
"""

from reference.device_selection import *


def physical_gpu_id(logical, visible):
    if logical < 0:
        raise ValueError(f"negative index {logical}")
    if visible is None:
        return logical
    ids = []
    for entry in visible.split(","):
        if not entry.strip().isdigit():
            break
        ids.append(int(entry))
    if logical >= len(ids):
        raise ValueError(f"no cuda:{logical} under CUDA_VISIBLE_DEVICES={visible!r}")
    return ids[logical]
