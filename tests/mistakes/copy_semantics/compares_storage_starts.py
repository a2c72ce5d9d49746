"""Two tensors share memory when their storages start at the same address. Two storages made
from overlapping slices of one buffer (`torch.from_numpy(a[:6])`, `torch.from_numpy(a[3:])`)
overlap without starting together.

Caught by: test_shares_memory_sees_storages_that_overlap_from_different_starts
"""

from reference.copy_semantics import *


def shares_memory(a, b):
    if a.device != b.device or a.device.type == "meta":
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return sa.nbytes() > 0 and sb.nbytes() > 0 and sa.data_ptr() == sb.data_ptr()
