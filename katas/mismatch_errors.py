"""Mismatch errors: read device and dtype errors, find what is on the wrong device, fix the inputs.

You moved the model to the GPU, started training, and got a RuntimeError. Nearly always one
tensor is not where, or not what, the others are. This kata reads those errors as a person
would, whichever build printed them, finds what is on the wrong device, and makes a
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
    # TODO(mismatch_errors): read the message, and decide which kind of mismatch it reports
    raise NotImplementedError("mismatch_errors: classify_error")


def _check_model(call: str, model) -> None:
    """Refuse a model that is not an nn.Module (given: an argument check, not the lesson)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"{call}: model must be an nn.Module, not {type(model).__name__}")


def device_report(model: nn.Module, *inputs) -> dict[str, torch.device]:
    """Where a forward pass of `model` on `inputs` finds its tensors, by name: the device of
    each parameter and buffer under its qualified name (`"0.weight"`), and of each tensor in
    `inputs` as `"input[i]"`, `i` its position in `inputs`. The given check refuses a `model`
    that is not an `nn.Module`.
    """
    _check_model("device_report", model)
    # TODO(mismatch_errors): name the device of everything the forward pass touches
    raise NotImplementedError("mismatch_errors: device_report")


def find_mismatches(model: nn.Module, *inputs) -> list[str]:
    """The names in `device_report(model, *inputs)` that are not on the model's device.

    The model's device is the one device that all its parameters are on; a model that has no
    such device is refused with a ValueError that says where its parameters are. The given
    check refuses a `model` that is not an `nn.Module`.
    """
    _check_model("find_mismatches", model)
    # TODO(mismatch_errors): find the model's one device, and what is not on it
    raise NotImplementedError("mismatch_errors: find_mismatches")


def fix_inputs(model: nn.Module, *inputs) -> tuple:
    """`inputs`, as a tuple, made ready for `model`.

    Every tensor ends up on the model's device (as `find_mismatches` defines it), every
    floating-point tensor in the model's floating-point dtype, and nothing else changes: an
    input that is already ready comes back itself, and the caller's tensors are not modified.
    A model without that one device, or whose floating-point parameters have several dtypes,
    is a ValueError. The given check refuses a `model` that is not an `nn.Module`.
    """
    _check_model("fix_inputs", model)
    # TODO(mismatch_errors): make each input fit the model, leaving what already fits as it is
    raise NotImplementedError("mismatch_errors: fix_inputs")
