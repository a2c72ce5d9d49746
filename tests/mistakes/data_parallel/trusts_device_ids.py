"""Never checks `device_ids` against the machine, so `[7]` on a 2-GPU machine gets as far as a
CUDA error (or a wrapper over a GPU that does not exist) instead of a clear ValueError.

Caught by: test_parallelize_rejects_a_gpu_that_does_not_exist
"""

from reference.data_parallel import *


def parallelize(model, device_ids=None):
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    ids = list(range(n)) if device_ids is None else list(device_ids)
    if not ids:
        return model
    model.to(f"cuda:{ids[0]}")
    return model if len(ids) == 1 else nn.DataParallel(model, device_ids=ids)
