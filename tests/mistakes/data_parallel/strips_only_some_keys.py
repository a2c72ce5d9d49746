"""Strips `module.` from the keys that have it and keeps the others, like
`consume_prefix_in_state_dict_if_present`: a state that was not a wrapper's gets half-renamed.

Caught by: test_strip_module_prefix_leaves_mixed_keys_alone
"""

from reference.data_parallel import *


def strip_module_prefix(state_dict):
    result = OrderedDict((k.removeprefix("module."), v) for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        result._metadata = OrderedDict(
            ("" if k == "module" else k.removeprefix("module."), v)
            for k, v in metadata.items()
            if k != ""
        )
    return result
