"""Refuses malformed `device_ids` with a message that names nothing ("invalid device_ids"), so the
caller cannot tell which entry was wrong: a duplicate, a string such as "cuda:1", or a float.

Caught by: test_parallelize_rejects_malformed_device_ids
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def parallelize(model, device_ids=None):
    n = _ref._gpu_count()
    if device_ids is not None:
        try:
            _ref._checked_ids(device_ids, n)
        except ValueError:
            raise ValueError("invalid device_ids") from None
    return _ref.parallelize(model, device_ids)
