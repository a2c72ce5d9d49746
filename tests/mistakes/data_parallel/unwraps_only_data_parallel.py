"""Knows only nn.DataParallel, so a DistributedDataParallel model (the recommended wrapper) comes
back still wrapped.

Caught by: test_unwrap_opens_distributed_data_parallel
"""

from reference.data_parallel import *


def unwrap(model):
    return model.module if isinstance(model, nn.DataParallel) else model
