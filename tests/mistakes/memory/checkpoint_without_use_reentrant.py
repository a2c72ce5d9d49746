"""Calls checkpoint without saying which variant: torch 2.13 warns that use_reentrant must be
passed explicitly, and falls back to the reentrant variant.

Caught by: test_checkpointed_gives_the_output_and_gradients_of_blocks
"""

from torch.utils.checkpoint import checkpoint

from reference.memory import *


def checkpointed(blocks, x):
    for block in blocks:
        x = checkpoint(block, x)
    return x
