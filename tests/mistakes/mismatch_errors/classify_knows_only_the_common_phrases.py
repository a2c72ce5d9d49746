"""Knows the phrases of the common device and dtype errors ("same device", "expected scalar
type", "same dtype", ...) but not those of indexing ops, normalisation layers, attention, gradient
assignment or DataParallel, all of which torch 2.13 prints: "index_add_(): ... must have the same
scalar type", "Index put requires the source and destination dtypes match", "mixed dtype (CPU):
all inputs must share same datatype", "module must have its parameters and buffers on device".

Caught by: test_classify_real_dtype_errors, test_classify_messages_from_pytorch_source
"""

import re

from reference.mismatch_errors import *
from reference.mismatch_errors import _TYPE_PAIRS, _backend

_DEVICE = re.compile(
    r"all tensors to be on the same (?:common )?device|is not on the expected device"
    r"|expected object of (?:device type|backend)|to have the same device as tensor"
    r"|is on cpu, but expected (?:it|them) to be on gpu"
    r"|expected tensor to have \w+ (?:devicetype|backend)"
    r"|are not at the same device|attempting to deserialize object on (?:a )?\w+ device",
    re.IGNORECASE,
)
_DTYPE = re.compile(
    r"same dtype|expected (?:object of )?scalar type|found dtype \w+ but expected"
    r"|expected target dtype|can't be cast to the desired output type"
    r"|to have (?:one of the following )?scalar types?"
    r"|input dtype \(.*\) does not match weight dtype",
    re.IGNORECASE,
)


def classify_error(err):
    if not isinstance(err, BaseException):
        raise TypeError("classify_error: err must be an exception")
    message = str(err)
    for pattern in _TYPE_PAIRS:
        pair = pattern.search(message)
        if pair:
            return "device" if _backend(pair.group(1)) != _backend(pair.group(2)) else "dtype"
    if _DEVICE.search(message):
        return "device"
    if _DTYPE.search(message):
        return "dtype"
    return "other"
