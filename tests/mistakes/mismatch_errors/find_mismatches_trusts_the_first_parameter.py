"""Uses `next(model.parameters()).device` as the model's device: a model half on one device and
half on another gets no error, and a model without parameters raises a bare StopIteration.

Caught by: test_find_mismatches_refuses_a_split_model, test_find_mismatches_needs_parameters
"""

from reference.mismatch_errors import *


def find_mismatches(model, *inputs):
    device = next(model.parameters()).device
    return [name for name, d in device_report(model, *inputs).items() if d != device]
