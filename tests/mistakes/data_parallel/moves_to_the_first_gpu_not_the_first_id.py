"""Moves the model to `cuda` (GPU 0) instead of `cuda:{device_ids[0]}`, so
`device_ids=[2, 3]` leaves the parameters on a GPU DataParallel does not use.

Caught by: test_parallelize_wraps_two_or_more_gpus_in_data_parallel
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def parallelize(model, device_ids=None):
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    ids = list(range(n)) if device_ids is None else _ref._checked_ids(device_ids, n)
    if not ids:
        return model
    model.to("cuda")
    return model if len(ids) == 1 else nn.DataParallel(model, device_ids=ids)
