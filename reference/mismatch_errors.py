"""Mismatch errors: read device and dtype errors, find what is on the wrong device, fix the inputs.

Every tensor an op touches must live on one device, and most ops want one floating dtype. When
that is not so, PyTorch raises; this module reads those errors and repairs the usual cause.
"""

from __future__ import annotations

import re

import torch
from torch import nn

# Phrases that PyTorch's device-mismatch errors share, matched case-insensitively.
_DEVICE = re.compile(
    "|".join(
        [
            # TensorIterator (elementwise ops, losses), the dispatcher's device check (matmul,
            # Linear, index_select on CUDA) and cuBLAS dot: "Expected all tensors to be on the
            # same device, but found at least two devices, cuda:0 and cpu!" and friends.
            r"all tensors to be on the same (?:common )?device",
            # torch/_prims_common: "Tensor on device meta is not on the expected device cpu!"
            r"is not on the expected device",
            # PyTorch <= 1.5: "Expected object of device type cuda but got device type cpu ...",
            # and before that "Expected object of backend CUDA but got backend CPU ...".
            r"expected object of (?:device type|backend)",
            # ATen/TensorUtils.cpp checkSameGPU, checkDeviceType and checkBackend.
            r"to have the same device as tensor",
            r"is on cpu, but expected (?:it|them) to be on gpu",
            r"expected tensor to have \w+ (?:devicetype|backend)",
            # RNN.cpp: "Input and parameter tensors are not at the same device, found ..."
            r"are not at the same device",
            # torch/serialization.py: a GPU checkpoint loaded where that GPU does not exist.
            r"attempting to deserialize object on (?:a )?\w+ device",
        ]
    ),
    re.IGNORECASE,
)

# Phrases that PyTorch's dtype-mismatch errors share.
_DTYPE = re.compile(
    "|".join(
        [
            r"same dtype",  # "mat1 and mat2 must have the same dtype", "expected m1 and m2 to ..."
            r"expected (?:object of )?scalar type",  # "expected scalar type Float but found Double"
            r"found dtype \w+ but expected",  # "Found dtype Double but expected Float"
            r"expected target dtype",  # nll_loss / cross_entropy with an Int target
            r"can't be cast to the desired output type",  # "result type Float can't be cast to ..."
            r"to have (?:one of the following )?scalar types?",  # TensorUtils checkScalarType(s)
            r"input dtype \(.*\) does not match weight dtype",  # RNN (a ValueError)
        ]
    ),
    re.IGNORECASE,
)

# Messages that name two tensor types: the types say whether devices or dtypes differ.
# "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
# "... to have the same type as tensor for argument #2 'weight'; but type torch.cuda.HalfTensor
#  does not equal torch.cuda.FloatTensor ..."
_TYPE_PAIRS = (
    re.compile(r"input type \(([^)]*)\) and (?:weight|bias) type \(([^)]*)\)", re.IGNORECASE),
    re.compile(r"but type (\S+) does not equal (\S+)", re.IGNORECASE),
)
_BACKEND = re.compile(r"cuda|hip|mps|xpu|meta|hpu|mtia", re.IGNORECASE)


def _backend(type_name: str) -> str:
    """'torch.cuda.FloatTensor' and 'CUDAFloatType' are cuda; 'torch.FloatTensor', 'float' cpu."""
    found = _BACKEND.search(type_name)
    return found.group(0).lower() if found else "cpu"


def classify_error(err: BaseException) -> str:
    """`"device"`, `"dtype"` or `"other"`, from the stable phrases of the error's message.

    The exception's type does not decide: most are RuntimeError, but RNNs raise ValueError for
    a dtype mismatch and any op can raise RuntimeError for a shape mismatch.
    """
    if not isinstance(err, BaseException):
        raise TypeError(f"classify_error(err={err!r}): err must be an exception")
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


def _check_model(call: str, model) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"{call}: model must be an nn.Module, not {type(model).__name__}")


def _model_device(call: str, model: nn.Module) -> torch.device:
    """The one device all of the model's parameters are on; ValueError when there is not one."""
    where: dict[torch.device, list[str]] = {}
    for name, p in model.named_parameters():
        where.setdefault(p.device, []).append(name)
    if not where:
        raise ValueError(
            f"{call}: the model has no parameters, so it has no device for the inputs to follow"
        )
    if len(where) > 1:
        spread = "; ".join(
            f"{device}: {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}"
            for device, names in where.items()
        )
        raise ValueError(
            f"{call}: the model's parameters are on {len(where)} devices ({spread}); "
            "move the whole model with model.to(device) first"
        )
    return next(iter(where))


def _model_float_dtype(call: str, model: nn.Module) -> torch.dtype | None:
    dtypes = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if len(dtypes) > 1:
        raise ValueError(
            f"{call}: the model's floating parameters have {len(dtypes)} dtypes "
            f"({', '.join(sorted(str(d) for d in dtypes))}); which one should inputs follow?"
        )
    return next(iter(dtypes), None)


def device_report(model: nn.Module, *inputs) -> dict[str, torch.device]:
    """The device of every parameter and buffer (by qualified name) and tensor input (`input[i]`).

    Inputs that are not tensors have no device and are left out; `i` still counts them.
    """
    _check_model("device_report", model)
    report = {name: p.device for name, p in model.named_parameters()}
    report.update({name: b.device for name, b in model.named_buffers()})
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            report[f"input[{i}]"] = x.device
    return report


def find_mismatches(model: nn.Module, *inputs) -> list[str]:
    """The names in `device_report` that are not on the device of the model's parameters."""
    _check_model("find_mismatches", model)
    device = _model_device("find_mismatches", model)
    return [name for name, d in device_report(model, *inputs).items() if d != device]


def fix_inputs(model: nn.Module, *inputs) -> tuple:
    """Every input moved to the model's device; floating inputs also cast to its floating dtype.

    Integer and bool tensors (labels, indices, masks) keep their dtype, and non-tensors are
    returned as they are. `Tensor.to` returns the input itself when nothing changes.
    """
    _check_model("fix_inputs", model)
    device = _model_device("fix_inputs", model)
    dtype = _model_float_dtype("fix_inputs", model)
    fixed = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            if x.is_floating_point() and dtype is not None:
                x = x.to(device=device, dtype=dtype)
            else:
                x = x.to(device)
        fixed.append(x)
    return tuple(fixed)
