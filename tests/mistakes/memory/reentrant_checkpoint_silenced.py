"""The reentrant checkpoint with its warning silenced: the output still does not require grad
when x does not, and the parameters get no gradient.

Caught by: test_checkpointed_reaches_the_parameters_when_x_does_not_require_grad
"""

import warnings

from torch.utils.checkpoint import checkpoint

from reference.memory import *


def checkpointed(blocks, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in blocks:
            x = checkpoint(block, x, use_reentrant=True)
    return x
