"""Checkpoints each block with the reentrant variant: when x does not require grad, none of
the checkpoint's inputs does, it warns "None of the inputs have requires_grad=True", and no
gradient reaches the parameters.

Caught by: test_checkpointed_reaches_the_parameters_when_x_does_not_require_grad
"""

from torch.utils.checkpoint import checkpoint

from reference.memory import *


def checkpointed(blocks, x):
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=True)
    return x
