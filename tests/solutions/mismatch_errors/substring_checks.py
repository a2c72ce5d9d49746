"""Reads messages with plain substring checks on the lower-cased text (no regular expressions),
takes a convolution's two types apart with `str.partition`, and builds the device report by
chaining parameters, buffers and inputs.
"""

from __future__ import annotations

from itertools import chain

import torch
from torch import nn

DEVICE_PHRASES = (
    "all tensors to be on the same device",
    "is not on the expected device",
    "expected object of device type",
    "expected object of backend",
    "to have the same device as tensor",
    "but expected it to be on gpu",
    "but expected them to be on gpu",
    "are not at the same device",
    "attempting to deserialize object on",
    "in the same device",
    "on the same device",
    "same device type",
    "parameters and buffers on device",
)
DTYPE_PHRASES = (
    "same dtype",
    "expected scalar type",
    "expected object of scalar type",
    "but expected float",
    "found dtype",
    "expected target dtype",
    "can't be cast to the desired output type",
    "following scalar types",
    "to have scalar type",
    "does not match weight dtype",
    "same scalar type",
    "dtype to be equal to",
    "dtypes match",
    "share same datatype",
    "gradient with dtype",
    "type promoting not supported",
)
GPU_WORDS = ("cuda", "hip", "mps", "xpu", "meta")


def _where(type_name: str) -> str:
    lowered = type_name.lower()
    return next((word for word in GPU_WORDS if word in lowered), "cpu")


def _between(text: str, start: str, end: str) -> str | None:
    _, found, rest = text.partition(start)
    if not found:
        return None
    inside, closed, _ = rest.partition(end)
    return inside if closed else None


def classify_error(err):
    if not isinstance(err, BaseException):
        raise TypeError(f"classify_error: {err!r} is not an exception")
    text = str(err).lower()
    first = _between(text, "input type (", ")")
    second = _between(text, "weight type (", ")") or _between(text, "bias type (", ")")
    if first is not None and second is not None:
        return "device" if _where(first) != _where(second) else "dtype"
    if "but type " in text and " does not equal " in text:
        a, _, b = text.partition("but type ")[2].partition(" does not equal ")
        return "device" if _where(a) != _where(b.split()[0]) else "dtype"
    if any(phrase in text for phrase in DEVICE_PHRASES):
        return "device"
    if any(phrase in text for phrase in DTYPE_PHRASES):
        return "dtype"
    return "other"


def _module(model, name):
    if not isinstance(model, nn.Module):
        raise TypeError(f"{name}: expected an nn.Module, got {type(model).__name__}")
    return model


def device_report(model, *inputs):
    model = _module(model, "device_report")
    named = chain(
        model.named_parameters(),
        model.named_buffers(),
        ((f"input[{i}]", x) for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)),
    )
    return {name: tensor.device for name, tensor in named}


def _the_device(model, name):
    devices = sorted({str(p.device) for p in model.parameters()})
    if len(devices) != 1:
        raise ValueError(
            f"{name}: the model's parameters are on {devices or 'no device'}; expected one device"
        )
    return torch.device(devices[0])


def find_mismatches(model, *inputs):
    device = _the_device(_module(model, "find_mismatches"), "find_mismatches")
    return [name for name, where in device_report(model, *inputs).items() if where != device]


def fix_inputs(model, *inputs):
    model = _module(model, "fix_inputs")
    device = _the_device(model, "fix_inputs")
    floats = {p.dtype for p in model.parameters() if p.dtype.is_floating_point}
    if len(floats) > 1:
        raise ValueError(f"fix_inputs: the model mixes floating dtypes {sorted(map(str, floats))}")
    dtype = floats.pop() if floats else None
    out = []
    for x in inputs:
        if torch.is_tensor(x):
            if dtype is not None and torch.is_floating_point(x):
                x = x.to(device, dtype)
            else:
                x = x.to(device)
        out.append(x)
    return tuple(out)
