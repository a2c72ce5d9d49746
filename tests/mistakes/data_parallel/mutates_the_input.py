"""Strips the keys of the caller's own dict in place (what
`consume_prefix_in_state_dict_if_present` does), so the caller's checkpoint changes under them.

Caught by: test_strip_module_prefix_never_mutates_its_input
"""

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

from reference.data_parallel import *


def strip_module_prefix(state_dict):
    if state_dict and all(k.startswith("module.") for k in state_dict):
        consume_prefix_in_state_dict_if_present(state_dict, "module.")
    return state_dict
