"""Copies `_metadata` across but forgets to strip its keys, so `load_state_dict` looks up each
layer's version under a name that no longer exists.

Caught by: test_strip_module_prefix_keeps_the_metadata
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def strip_module_prefix(state_dict):
    result = _ref.strip_module_prefix(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    return result
