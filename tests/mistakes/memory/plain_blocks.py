"""Runs the blocks as they are: right output and gradients, but every inner activation is
kept until the backward pass.

Caught by: test_checkpointed_keeps_no_inner_activation_between_the_passes
"""

from reference.memory import *


def checkpointed(blocks, x):
    return blocks(x)
