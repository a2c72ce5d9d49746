"""Mismatch errors: read device and dtype errors, find what is on the wrong device, fix the inputs.

Every tensor an op touches must live on one device, and most ops want one floating dtype. When
that is not so, PyTorch raises; this module reads those errors and repairs the usual cause.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs mismatch_errors

Check it:  python -m katas check mismatch_errors
Stuck?     python -m katas hint mismatch_errors   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import re

import torch
from torch import nn


def classify_error(err: BaseException) -> str:
    """Say what kind of mismatch an exception reports: `"device"`, `"dtype"` or `"other"`.

    - `"device"`: tensors (or a checkpoint's storages) are on a device the op cannot use with
      the others. Elementwise ops, matmul, `nn.Linear`, convolutions, RNNs and losses all
      raise these, as does `torch.load` of a GPU checkpoint on a machine without that GPU
      ("Attempting to deserialize object on a CUDA device ...").
    - `"dtype"`: the tensors' dtypes do not go together (say, float64 inputs into a float32
      model, or an int32 target for `cross_entropy`).
    - `"other"`: anything else, including shape mismatches, running out of GPU memory and
      CUDA's own runtime errors ("CUDA error: device-side assert triggered"): they are not
      mismatches, even when they mention CUDA or a device.

    Recognise the stable phrases that PyTorch's messages share, on CPU and CUDA builds, in
    today's releases and in old ones ("Expected object of device type cuda but got device type
    cpu"). The exception's type does not decide: nearly all are RuntimeError, but an RNN
    reports a dtype mismatch with ValueError, and shape errors are RuntimeErrors too.
    Capitalisation varies between PyTorch's messages. A convolution names two tensor types,
    "Input type (A) and weight type (B) should be the same": compare A and B to know whether
    the devices or the dtypes differ.

    Real messages from torch 2.13 on a CPU build, where the `meta` device plays the GPU (the
    tests check these, and the ones a CUDA build or an old release prints, quoted from
    PyTorch's source; a failing test shows every message it misread, in full):

        device  RuntimeError: Tensor on device cpu is not on the expected device meta!
        device  RuntimeError: Input and parameter tensors are not at the same device, found input
                tensor at cpu and parameter tensor at meta
        device  RuntimeError: Attempting to deserialize object on CUDA device 3 but
                torch.cuda.device_count() is 1. Please use torch.load with map_location to map your
                storages to an existing device.
        dtype   RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float
        dtype   RuntimeError: expected m1 and m2 to have the same dtype, but got: float != double
        dtype   RuntimeError: Input type (double) and bias type (float) should be the same
        dtype   ValueError: RNN input dtype (torch.float64) does not match weight dtype
                (torch.float32). Convert input: input.to(torch.float32), or convert model:
                model.to(torch.float64)
        dtype   RuntimeError: Found dtype Double but expected Float
        dtype   RuntimeError: result type Float can't be cast to the desired output type Long
        dtype   RuntimeError: expected target dtype to be Long or Byte, but got Int
        dtype   RuntimeError: expected scalar type Double but found Float
        dtype   RuntimeError: dot : expected both vectors to have same dtype, but found Float and
                Double
        other   RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
        other   RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at
                non-singleton dimension 1
        other   ValueError: Expected input batch_size (3) to match target batch_size (2).
    """
    # TODO(mismatch_errors): write classify_error; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: classify_error")


def device_report(model: nn.Module, *inputs) -> dict[str, torch.device]:
    """The device of every parameter and buffer (by qualified name) and tensor input (`input[i]`).

    Inputs that are not tensors have no device and are left out; `i` still counts them.
    """
    # TODO(mismatch_errors): write device_report; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: device_report")


def find_mismatches(model: nn.Module, *inputs) -> list[str]:
    """The names in `device_report` that are not on the device of the model's parameters."""
    # TODO(mismatch_errors): write find_mismatches; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: find_mismatches")


def fix_inputs(model: nn.Module, *inputs) -> tuple:
    """Every input moved to the model's device; floating inputs also cast to its floating dtype.

    Integer and bool tensors (labels, indices, masks) keep their dtype, and non-tensors are
    returned as they are. `Tensor.to` returns the input itself when nothing changes.
    """
    # TODO(mismatch_errors): write fix_inputs; the docstring above is the contract.
    raise NotImplementedError("mismatch_errors: fix_inputs")
