"""Reads `str(err)` of whatever it is given, so a string, None or an exception class gets a label
instead of a TypeError: a caller who passed the message instead of the exception never learns.

Caught by: test_classify_refuses_what_is_not_an_exception
"""

import reference.mismatch_errors as _ref
from reference.mismatch_errors import *


def classify_error(err):
    return _ref.classify_error(RuntimeError(str(err)))
