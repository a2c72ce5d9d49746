"""Mismatch errors: read device and dtype errors, find what is on the wrong device, fix the inputs.

You moved the model to the GPU, started training, and got a RuntimeError. Nearly always one
tensor is not where, or not what, the others are. This kata reads those errors as a person
would, whichever build printed them, finds what is on the wrong device, and makes a
batch fit the model before the model sees it.
"""

from __future__ import annotations

import re

import torch
from torch import nn

# BEGIN SOLUTION
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
            # Many ATen checks: "index_add(): self, index and source expected to be in the same
            # device", "on same device", sdpa's "to have the same device type", "must be on
            # the same type of device"; and autograd's "Please ensure that the gradient and the
            # tensor are on the same device".
            r"(?:on|in|at|have) (?:the )?same (?:type of )?device",
            # torch/nn/parallel/data_parallel.py: "module must have its parameters and buffers
            # on device cuda:0 (device_ids[0]) but found one of them on device: cpu"
            r"parameters and buffers on device",
        ]
    ),
    re.IGNORECASE,
)
# END SOLUTION

# BEGIN SOLUTION
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
            r"same scalar type",  # "index_add_(): self (Float) and source (Double) must have ..."
            r"\.dtype to be equal to \w+\.dtype",  # "scatter(): Expected self.dtype to be ..."
            r"dtypes match",  # "Index put requires the source and destination dtypes match"
            r"share (?:the )?same datatype",  # LayerNorm, BatchNorm: "mixed dtype (CPU): ..."
            r"gradient with dtype",  # "attempting to assign a gradient with dtype 'double' ..."
            r"type promoting not supported",  # "prelu: Type promoting not supported. Got ..."
        ]
    ),
    re.IGNORECASE,
)
# END SOLUTION

# BEGIN SOLUTION
# Messages that name two tensor types: the types say whether devices or dtypes differ.
# "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
# "... to have the same type as tensor for argument #2 'weight'; but type torch.cuda.HalfTensor
#  does not equal torch.cuda.FloatTensor ..."
_TYPE_PAIRS = (
    re.compile(r"input type \(([^)]*)\) and (?:weight|bias) type \(([^)]*)\)", re.IGNORECASE),
    re.compile(r"but type (\S+) does not equal (\S+)", re.IGNORECASE),
)
_BACKEND = re.compile(r"cuda|hip|mps|xpu|meta|hpu|mtia", re.IGNORECASE)
# END SOLUTION


# BEGIN SOLUTION
def _backend(type_name: str) -> str:
    """'torch.cuda.FloatTensor' and 'CUDAFloatType' are cuda; 'torch.FloatTensor', 'float' cpu."""
    found = _BACKEND.search(type_name)
    return found.group(0).lower() if found else "cpu"


# END SOLUTION


def classify_error(err: BaseException) -> str:
    """What kind of mismatch `err` reports: `"device"`, `"dtype"` or `"other"`.

    - `"device"`: tensors, or a checkpoint's storages, are on devices that cannot be used
      together (an op mixing devices; `torch.load` of a GPU checkpoint where that GPU is not).
    - `"dtype"`: the tensors' dtypes do not go together (float64 data into a float32 model, an
      int32 target for a loss).
    - `"other"`: anything else.

    The answer must hold for the messages that PyTorch's own checks print when the tensors of
    one call, or a checkpoint and the machine, do not agree: the wordings of torch 2.13's CPU
    and CUDA builds, and the older ones (back to torch 1.0) and the newer ones that the tests
    quote from PyTorch's sources. The given check refuses what is not an exception.

    Real messages from torch 2.13 on a CPU build, where the `meta` device plays the GPU (the
    tests check these, and the ones a CUDA build or an old release prints):

        device  RuntimeError: Tensor on device cpu is not on the expected device meta!
        device  RuntimeError: Input and parameter tensors are not at the same device, found input
                tensor at cpu and parameter tensor at meta
        device  RuntimeError: Attempting to deserialize object on CUDA device 3 but
                torch.cuda.device_count() is 1. Please use torch.load with map_location to map your
                storages to an existing device.
        dtype   RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float
        dtype   RuntimeError: Input type (double) and bias type (float) should be the same
        dtype   ValueError: RNN input dtype (torch.float64) does not match weight dtype
                (torch.float32). Convert input: input.to(torch.float32), or convert model:
                model.to(torch.float64)
        dtype   RuntimeError: expected target dtype to be Long or Byte, but got Int
        other   RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
        other   ValueError: Expected input batch_size (3) to match target batch_size (2).

    Wordings change between releases: torch 2.13 and 2.14 print that shape error as quoted,
    and torch 2.15 puts the op's name in front of it ("mm: mat1 and mat2 shapes ...", and
    "addmm: ..." from `nn.Linear`).
    """
    if not isinstance(err, BaseException):
        raise TypeError(f"classify_error(err={err!r}): err must be an exception")
    # BEGIN SOLUTION: read the message, and decide which kind of mismatch it reports
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
    # END SOLUTION


def _check_model(call: str, model) -> None:
    """Refuse a model that is not an nn.Module (given: an argument check, not the lesson)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"{call}: model must be an nn.Module, not {type(model).__name__}")


# BEGIN SOLUTION
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


# END SOLUTION


# BEGIN SOLUTION
def _model_float_dtype(call: str, model: nn.Module) -> torch.dtype | None:
    dtypes = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if len(dtypes) > 1:
        raise ValueError(
            f"{call}: the model's floating parameters have {len(dtypes)} dtypes "
            f"({', '.join(sorted(str(d) for d in dtypes))}); which one should inputs follow?"
        )
    return next(iter(dtypes), None)


# END SOLUTION


def device_report(model: nn.Module, *inputs) -> dict[str, torch.device]:
    """Where a forward pass of `model` on `inputs` finds its tensors, by name: the device of
    each parameter and buffer under its qualified name (`"0.weight"`), and of each tensor in
    `inputs` as `"input[i]"`, `i` its position in `inputs`. The given check refuses a `model`
    that is not an `nn.Module`.
    """
    _check_model("device_report", model)
    # BEGIN SOLUTION: name the device of everything the forward pass touches
    report = {name: p.device for name, p in model.named_parameters()}
    report.update({name: b.device for name, b in model.named_buffers()})
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            report[f"input[{i}]"] = x.device
    return report
    # END SOLUTION


def find_mismatches(model: nn.Module, *inputs) -> list[str]:
    """The names in `device_report(model, *inputs)` that are not on the model's device.

    The model's device is the one device that all its parameters are on; a model that has no
    such device is refused with a ValueError that says where its parameters are. The given
    check refuses a `model` that is not an `nn.Module`.
    """
    _check_model("find_mismatches", model)
    # BEGIN SOLUTION: find the model's one device, and what is not on it
    device = _model_device("find_mismatches", model)
    return [name for name, d in device_report(model, *inputs).items() if d != device]
    # END SOLUTION


def fix_inputs(model: nn.Module, *inputs) -> tuple:
    """`inputs`, as a tuple, made ready for `model`.

    Every tensor ends up on the model's device (as `find_mismatches` defines it), every
    floating-point tensor in the model's floating-point dtype, and nothing else changes: an
    input that is already ready comes back itself, and the caller's tensors are not modified.
    A model without that one device, or whose floating-point parameters have several dtypes,
    is a ValueError. The given check refuses a `model` that is not an `nn.Module`.
    """
    _check_model("fix_inputs", model)
    # BEGIN SOLUTION: make each input fit the model, leaving what already fits as it is
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
    # END SOLUTION
