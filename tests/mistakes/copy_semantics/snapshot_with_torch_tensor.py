"""Uses `torch.tensor(x)` as a snapshot. The copy is right, but torch warns that
`x.detach().clone()` is the way to copy a tensor.

Caught by: test_snapshot_raises_no_warning
"""

from reference.copy_semantics import *


def snapshot(x):
    return torch.tensor(x)
