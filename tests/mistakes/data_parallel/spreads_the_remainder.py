"""Spreads the remainder over the first devices like `np.array_split` or `tensor_split`
(10 over 3 is [4, 3, 3], 4 over 3 is [2, 1, 1]); `chunk`, which DataParallel uses, does not.

Caught by: test_scatter_sizes_match_chunking_a_real_batch
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def scatter_sizes(batch_size, n_devices):
    _ref.scatter_sizes(batch_size, n_devices)  # the same argument checks
    base, rest = divmod(batch_size, n_devices)
    return [base + 1] * rest + [base] * (n_devices - rest) if base else [1] * rest
