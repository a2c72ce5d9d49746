"""Builds the result with a dict comprehension, which loses `_metadata`: layers that convert old
checkpoints (BatchNorm, say) are then told no version at all.

Caught by: test_strip_module_prefix_keeps_the_metadata
"""

from reference.data_parallel import *


def strip_module_prefix(state_dict):
    if state_dict and all(k.startswith("module.") for k in state_dict):
        return {k[len("module.") :]: v for k, v in state_dict.items()}
    return dict(state_dict)
