"""Mismatch errors: read device and dtype errors, find what is on the wrong device, fix the inputs.

You moved the model to the GPU, started training, and got a RuntimeError. Nearly always one
tensor is not where, or not what, the others are. This kata reads those errors as a person
would, whatever release or build printed them, finds what is on the wrong device, and makes a
batch fit the model before the model sees it.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs mismatch_errors

Check it:  python -m katas check mismatch_errors
Stuck?     python -m katas hint mismatch_errors   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import re

import torch
from torch import nn


def classify_error(err: BaseException) -> str:
    """What kind of mismatch `err` reports: `"device"`, `"dtype"` or `"other"`.

    - `"device"`: tensors, or a checkpoint's storages, are on devices that cannot be used
      together (an op mixing devices; `torch.load` of a GPU checkpoint where that GPU is not).
    - `"dtype"`: the tensors' dtypes do not go together (float64 data into a float32 model, an
      int32 target for a loss).
    - `"other"`: anything else, even when it mentions CUDA, a device or a type.

    The answer must hold for the messages of CPU and CUDA builds, of today's releases and of
    old ones, whatever the exception's type. A convolution's "Input type (A) and weight type
    (B) should be the same" is a device mismatch when A and B are on different devices, and a
    dtype mismatch otherwise. Anything that is not an exception is a TypeError.

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
    # TODO(mismatch_errors): write classify_error; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: classify_error")


def device_report(model: nn.Module, *inputs) -> dict[str, torch.device]:
    """The device of everything a forward pass of `model` on `inputs` touches, by name.

    Every parameter and buffer of the model, under its qualified name (`"0.weight"`,
    `"1.running_mean"`), and every tensor input as `"input[i]"`, where `i` is its position
    among all the inputs. Inputs that are not tensors have no device and are left out. A
    `model` that is not an `nn.Module` is a TypeError.
    """
    # TODO(mismatch_errors): write device_report; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: device_report")


def find_mismatches(model: nn.Module, *inputs) -> list[str]:
    """The names in `device_report(model, *inputs)` that are not on the model's device.

    The model's device is the one device that all its parameters are on. A model without
    parameters, or with parameters on several devices, has none: a ValueError, which names
    the devices. A `model` that is not an `nn.Module` is a TypeError.
    """
    # TODO(mismatch_errors): write find_mismatches; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: find_mismatches")


def fix_inputs(model: nn.Module, *inputs) -> tuple:
    """`inputs`, as a tuple, made ready for `model`.

    Every tensor ends up on the model's device (as `find_mismatches` defines it), and every
    floating tensor in the model's floating dtype; integer and bool tensors (labels, indices,
    masks) keep their dtype, and anything that is not a tensor comes back as it is. An input
    that is already right comes back itself, not a copy, and the caller's tensors are never
    changed. A model without that one device, or whose floating parameters have several dtypes,
    is a ValueError; a `model` that is not an `nn.Module`, a TypeError.
    """
    # TODO(mismatch_errors): write fix_inputs; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: fix_inputs")
