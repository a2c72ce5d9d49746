"""Takes any `state_dict` on trust, so a list of pairs or None fails with an AttributeError about
`.items()` instead of a TypeError that says a dict was expected.

Caught by: test_strip_module_prefix_rejects_what_is_not_a_dict
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def strip_module_prefix(state_dict):
    result = OrderedDict(state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = state_dict._metadata
    return _ref.strip_module_prefix(result)
