"""Uses `x.detach()` as a snapshot. It leaves the graph, but it shares memory (and the version
counter) with `x`, so every later in-place change to `x` shows in it.

Caught by: test_snapshot_is_an_equal_copy_with_its_own_memory
"""

from reference.copy_semantics import *


def snapshot(x):
    return x.detach()
