"""Clears .grad first and checks the arguments afterwards: a refused call has already thrown
away the gradients the caller had.

Caught by: test_accumulate_refuses_bad_batches_before_touching_gradients
"""

from reference import memory as _reference
from reference.memory import *


def accumulate(model, optimizer, loss_fn, inputs, targets, *, micro_batch):
    optimizer.zero_grad()
    return _reference.accumulate(
        model, optimizer, loss_fn, inputs, targets, micro_batch=micro_batch
    )
