"""Never checks that `model` is a module: without GPUs a string or None comes back as if it were
a model, and with GPUs it fails deep inside `Module.to` or DataParallel with an AttributeError.

Caught by: test_parallelize_rejects_what_is_not_a_module
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def parallelize(model, device_ids=None):
    n = _ref._gpu_count()
    ids = list(range(n)) if device_ids is None else _ref._checked_ids(device_ids, n)
    if not ids:
        return model
    model.to(torch.device("cuda", ids[0]))
    return model if len(ids) == 1 else nn.DataParallel(model, device_ids=ids)
