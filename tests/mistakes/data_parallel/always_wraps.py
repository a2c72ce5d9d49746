"""Always wraps in nn.DataParallel, even with one GPU or none (the wrapper then only costs time
and renames every state_dict key to `module.<name>`).

Caught by: test_parallelize_leaves_the_model_alone_without_gpus
"""

from reference.data_parallel import *


def parallelize(model, device_ids=None):
    if torch.cuda.is_available():
        model.to(torch.device("cuda", (device_ids or [0])[0]))
    return nn.DataParallel(model, device_ids=device_ids)
