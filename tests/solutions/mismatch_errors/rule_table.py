"""Classifies with one ordered table of regular expressions, each rule with its label, and reads
a convolution's types with named groups; finds the model's device from a set, and checks that
the floating dtype is unique with a dict of names.
"""

from __future__ import annotations

import re

import torch
from torch import nn

_TYPES = re.compile(
    r"(?:input type \((?P<a>[^)]*)\) and (?:weight|bias) type \((?P<b>[^)]*)\))"
    r"|(?:but type (?P<c>\S+) does not equal (?P<d>\S+))",
    re.I,
)
_RULES = [
    (re.compile(r"expected object of scalar type", re.I), "dtype"),
    (re.compile(r"expected object of (device type|backend)", re.I), "device"),
    (
        re.compile(
            r"same (common |type of )?device|expected device|not on the expected device"
            r"|parameters and buffers on device",
            re.I,
        ),
        "device",
    ),
    (re.compile(r"is on cpu, but expected \w+ to be on gpu", re.I), "device"),
    (re.compile(r"deserialize object on", re.I), "device"),
    (
        re.compile(
            r"same dtype|scalar types?\b|found dtype|target dtype|weight dtype|dtype to be equal"
            r"|dtypes match|same datatype|gradient with dtype|type promoting",
            re.I,
        ),
        "dtype",
    ),
    (re.compile(r"cast to the desired output type", re.I), "dtype"),
]


def _is_gpu(name: str) -> bool:
    return re.search(r"cuda|hip|mps|xpu|meta", name, re.I) is not None


def classify_error(err: BaseException) -> str:
    if not isinstance(err, BaseException):
        raise TypeError("classify_error takes an exception, not " + type(err).__name__)
    message = str(err)
    types = _TYPES.search(message)
    if types:
        a, b = (types["a"], types["b"]) if types["a"] is not None else (types["c"], types["d"])
        return "device" if _is_gpu(a) != _is_gpu(b) else "dtype"
    for pattern, label in _RULES:
        if pattern.search(message):
            return label
    return "other"


def _need_module(model, where):
    if not isinstance(model, nn.Module):
        raise TypeError(f"{where}(model=...): {model!r} is not an nn.Module")


def device_report(model, *inputs):
    _need_module(model, "device_report")
    report = {}
    for name, p in model.named_parameters():
        report[name] = p.device
    for name, b in model.named_buffers():
        report[name] = b.device
    for i, x in enumerate(inputs):
        if torch.is_tensor(x):
            report["input[" + str(i) + "]"] = x.device
    return report


def _device(model, where):
    devices = {p.device for p in model.parameters()}
    if not devices:
        raise ValueError(f"{where}: a model with no parameters has no device")
    if len(devices) > 1:
        raise ValueError(f"{where}: parameters on {', '.join(map(str, devices))}")
    (device,) = devices
    return device


def find_mismatches(model, *inputs):
    _need_module(model, "find_mismatches")
    device = _device(model, "find_mismatches")
    report = device_report(model, *inputs)
    return sorted(name for name in report if report[name] != device)


def fix_inputs(model, *inputs):
    _need_module(model, "fix_inputs")
    device = _device(model, "fix_inputs")
    by_name = {str(p.dtype): p.dtype for p in model.parameters() if p.is_floating_point()}
    if len(by_name) > 1:
        raise ValueError(f"fix_inputs: floating parameters of dtypes {sorted(by_name)}")
    dtype = next(iter(by_name.values()), None)

    def fixed(x):
        if not isinstance(x, torch.Tensor):
            return x
        if x.is_floating_point() and dtype is not None:
            return x.to(device=device, dtype=dtype)
        return x.to(device=device)

    return tuple(map(fixed, inputs))
