"""Calls every message that mentions CUDA or a device a device error: running out of GPU memory,
a device-side assert and a half-precision CUDA convolution are not device mismatches.

Caught by: test_classify_messages_from_pytorch_source, test_classify_reads_the_convolution_types
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def classify_error(err):
    text = str(err).lower()
    if "cuda" in text or "device" in text:
        return "device"
    return _ref.classify_error(err)
