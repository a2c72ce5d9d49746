"""Refuses a bad batch size or device count with one message for both, so the reader cannot
tell which of the two arguments is wrong.

Caught by: test_scatter_sizes_rejects_bad_arguments
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def scatter_sizes(batch_size, n_devices):
    try:
        return _ref.scatter_sizes(batch_size, n_devices)
    except ValueError:
        raise ValueError("scatter_sizes: expects two positive ints") from None
