"""Splits evenly and gives the remainder to the last device (10 over 3 is [3, 3, 4]), which is
not what `chunk` does: DataParallel gives [4, 4, 2].

Caught by: test_scatter_sizes_match_chunking_a_real_batch
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def scatter_sizes(batch_size, n_devices):
    _ref.scatter_sizes(batch_size, n_devices)  # the same argument checks
    base, rest = divmod(batch_size, n_devices)
    sizes = [base] * (n_devices - 1) + [base + rest]
    return [s for s in sizes if s]
