"""Returns `next(model.parameters()).device`, the first parameter's device, so a model spread
across devices goes unnoticed until some operation mixes them.

Caught by: test_model_device_refuses_a_model_spread_across_devices
"""

from reference.model_transfer import *


def model_device(model):
    return next(model.parameters()).device
