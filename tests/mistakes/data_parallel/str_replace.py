"""Uses `key.replace("module.", "")`, which removes `module.` everywhere in the key: it turns
`module.0.submodule.weight` into `0.subweight` and `module.module.x` into `x`.

Caught by: test_strip_module_prefix_strips_every_key_once
"""

import reference.data_parallel as _ref
from reference.data_parallel import *


def strip_module_prefix(state_dict):
    result = _ref.strip_module_prefix(state_dict)
    if list(result) == list(state_dict):
        return result
    stripped = OrderedDict((k.replace("module.", ""), v) for k, v in state_dict.items())
    stripped._metadata = result._metadata
    return stripped
