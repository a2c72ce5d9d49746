"""Wraps in nn.DataParallel but leaves the model on the CPU; with two or more GPUs DataParallel
does not move it, and the first forward fails because the parameters are not on device_ids[0].

Caught by: test_parallelize_wraps_two_or_more_gpus_in_data_parallel
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def parallelize(model, device_ids=None):
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    ids = list(range(n)) if device_ids is None else _ref._checked_ids(device_ids, n)
    if len(ids) >= 2:
        return nn.DataParallel(model, device_ids=ids)
    if ids:
        model.to(torch.device("cuda", ids[0]))
    return model
