"""Unwraps with `getattr(model, "module", model)`, which also "unwraps" a plain model that has
its own submodule called `module`, returning a piece of it.

Caught by: test_unwrap_opens_data_parallel_and_leaves_plain_models
"""

from reference.data_parallel import *


def unwrap(model):
    return getattr(model, "module", model)
