"""Mismatch errors: read device and dtype errors, find what is misplaced, and fix the inputs.

An op needs all its tensors on one device, and most ops want one floating dtype. Forget a
`.to(device)` and PyTorch raises; the message depends on the op, the release and the build. Read
docs/katas/mismatch_errors.md, then fill in each function.

Check it:  python -m katas check mismatch_errors
Stuck?     python -m katas hint mismatch_errors
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import torch
from torch import nn


def device_report(model: nn.Module, *inputs) -> dict[str, torch.device]:
    """Where everything lives: `{name: torch.device}` for the model and the inputs.

    - every parameter, by its qualified name (`"0.weight"`, `"encoder.fc.bias"`);
    - every buffer, by its qualified name (`"1.running_mean"`): buffers are tensors the model
      keeps but does not train, such as BatchNorm's running statistics, and they must be on
      the model's device just as much as the weights;
    - every tensor input, as `"input[0]"`, `"input[1]"`, ... by its position in `inputs`.
      An input that is not a tensor (a flag, `None`) has no device and is left out, but the
      positions still count it: in `device_report(model, x, True, y)`, `y` is `"input[2]"`.

    A `model` that is not an `nn.Module` raises TypeError.
    """
    # TODO(mismatch_errors): named_parameters(), named_buffers(), then the tensor inputs.
    raise NotImplementedError("mismatch_errors: device_report")


def find_mismatches(model: nn.Module, *inputs) -> list[str]:
    """The names from `device_report` that are not on the model's device; `[]` means all is well.

    The model's device is the one device all its parameters are on: the inputs follow the
    model, never the other way round, so the first input is no reference (it may be the very
    tensor you forgot to move). Buffers count like everything else.

    When there is no such device, the question has no answer, and ValueError says why:
    - the model has no parameters at all;
    - its parameters are spread over several devices (a half-moved model): the message names
      the devices, and some parameters on each.
    """
    # TODO(mismatch_errors): find the parameters' device, then compare every report entry to it.
    raise NotImplementedError("mismatch_errors: find_mismatches")


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
    # TODO(mismatch_errors): print real errors, find the phrases they share, match those.
    raise NotImplementedError("mismatch_errors: classify_error")


def fix_inputs(model: nn.Module, *inputs) -> tuple:
    """Return the inputs as a tuple, every tensor moved to the model's device.

    - floating tensors (`x.is_floating_point()`) are also cast to the model's floating dtype,
      the dtype of its floating parameters: float64 data meets a float32 model, float32 data
      a half-precision one;
    - integer and bool tensors keep their dtype: labels and indices must stay integers
      (`cross_entropy` takes int64 or uint8 class indices, `nn.Embedding` integer indices);
    - anything that is not a tensor is returned as it is;
    - a tensor already on the right device with the right dtype comes back as the very same
      object, with no copy (that is what `Tensor.to` does when there is nothing to do);
    - the caller's tensors are never changed in place.

    The model's device is found as in `find_mismatches`, with the same ValueErrors. A model
    whose floating parameters have more than one dtype is a ValueError too.
    """
    # TODO(mismatch_errors): one `.to(...)` per tensor; only floating ones get a dtype.
    raise NotImplementedError("mismatch_errors: fix_inputs")
