"""Builds the device report by walking `named_modules()` and each module's own parameters and
buffers (`recurse=False`), reads messages through `casefold()` and a phrase-to-label dict,
and decides the convolution's types by whether each names a GPU backend.
"""

from __future__ import annotations

import torch
from torch import nn

PHRASES = {
    "all tensors to be on the same device": "device",
    "all tensors to be on the same common device": "device",
    "is not on the expected device": "device",
    "expected object of device type": "device",
    "expected object of backend": "device",
    "to have the same device as tensor": "device",
    "but expected it to be on gpu": "device",
    "are not at the same device": "device",
    "attempting to deserialize object on": "device",
    "in the same device": "device",
    "on the same device": "device",
    "same device type": "device",
    "parameters and buffers on device": "device",
    "same scalar type": "dtype",
    "dtype to be equal to": "dtype",
    "dtypes match": "dtype",
    "share same datatype": "dtype",
    "gradient with dtype": "dtype",
    "type promoting not supported": "dtype",
    "expected object of scalar type": "dtype",
    "same dtype": "dtype",
    "expected scalar type": "dtype",
    "found dtype": "dtype",
    "expected target dtype": "dtype",
    "desired output type": "dtype",
    "one of the following scalar types": "dtype",
    "does not match weight dtype": "dtype",
}
BACKENDS = ("cuda", "hip", "mps", "xpu", "meta", "hpu")


def _backend(name):
    name = name.casefold()
    for backend in BACKENDS:
        if backend in name:
            return backend
    return "cpu"


def _pair(text):
    for left, right in (
        ("input type (", ") and weight type ("),
        ("input type (", ") and bias type ("),
    ):
        if left in text and right in text:
            a = text.split(left, 1)[1].split(right, 1)[0]
            b = text.split(right, 1)[1].split(")", 1)[0]
            return a, b
    if "but type " in text and " does not equal " in text:
        a, b = text.split("but type ", 1)[1].split(" does not equal ", 1)
        return a, b.split(" ", 1)[0]
    return None


def classify_error(err):
    if not isinstance(err, BaseException):
        raise TypeError(f"classify_error needs an exception; got {type(err).__name__}")
    text = str(err).casefold()
    pair = _pair(text)
    if pair is not None:
        return "dtype" if _backend(pair[0]) == _backend(pair[1]) else "device"
    labels = [label for phrase, label in PHRASES.items() if phrase in text]
    if "device" in labels:
        return "device"
    return "dtype" if labels else "other"


def _check(model):
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected an nn.Module, not {type(model).__name__}")


def device_report(model, *inputs):
    _check(model)
    report = {}
    for prefix, module in model.named_modules():
        dot = f"{prefix}." if prefix else ""
        for kind in (module.named_parameters, module.named_buffers):
            for name, tensor in kind(recurse=False):
                report.setdefault(dot + name, tensor.device)
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            report[f"input[{i}]"] = x.device
    return report


def _model_device(model):
    params = list(model.parameters())
    if not params:
        raise ValueError("the model has no parameters, so no device")
    first = params[0].device
    others = [p.device for p in params if p.device != first]
    if others:
        raise ValueError(f"the model is split between {first} and {others[0]}")
    return first


def find_mismatches(model, *inputs):
    _check(model)
    device = _model_device(model)
    return [k for k, v in device_report(model, *inputs).items() if v != device]


def fix_inputs(model, *inputs):
    _check(model)
    device = _model_device(model)
    dtypes = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if len(dtypes) > 1:
        raise ValueError(f"the model's parameters mix {dtypes}")
    dtype = min(dtypes, key=str) if dtypes else None
    return tuple(
        x.to(device, dtype)
        if isinstance(x, torch.Tensor) and x.is_floating_point() and dtype
        else x.to(device)
        if isinstance(x, torch.Tensor)
        else x
        for x in inputs
    )
