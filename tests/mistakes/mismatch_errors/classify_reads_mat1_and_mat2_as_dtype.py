"""Takes "mat1 and mat2" for the dtype message, so "mat1 and mat2 shapes cannot be multiplied", a
shape mismatch, reads as a dtype error.

Caught by: test_classify_other_errors_as_other, test_classify_messages_from_pytorch_source
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def classify_error(err):
    if "mat1 and mat2" in str(err):
        return "dtype"
    return _ref.classify_error(err)
