"""Takes the snapshot with `x.detach().cpu()`. On the CPU, `cpu()` changes nothing and returns
the detached view, so the snapshot shares `x`'s memory (and on a GPU it changes device).

Caught by: test_snapshot_is_an_equal_copy_with_its_own_memory
"""

from reference.copy_semantics import *


def snapshot(x):
    return x.detach().cpu()
