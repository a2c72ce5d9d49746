"""Model transfer: move a model, its parameters and its buffers, train it on the device, and load
checkpoints saved anywhere.

A model and the data it reads must sit on the same device. Read docs/katas/model_transfer.md,
then fill in each function.

Check it:  python -m katas check model_transfer
Stuck?     python -m katas hint model_transfer
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO

import torch
from torch import nn


def model_device(model: nn.Module) -> torch.device:
    """Return the one device that holds every parameter and every buffer of `model`.

    Buffers count: BatchNorm's running mean and variance are buffers, and a model whose
    parameters are on the GPU but whose buffers are on the CPU is broken.

    - All on one device: return that `torch.device` (for example `device(type='cpu')`).
    - Spread across devices: raise ValueError that names the devices and lists the parameter
      and buffer names on them (`cpu: 0.weight, 0.bias; meta: 1.weight, ...`; listing only the
      ones left behind is enough), so the reader can find them. Returning the first
      parameter's device would hide the problem.
    - No parameters and no buffers (say, `nn.ReLU()`): there is no answer; raise ValueError.

    >>> model_device(nn.Linear(2, 3))
    device(type='cpu')
    """
    # TODO(model_transfer): collect the devices of named_parameters() and named_buffers().
    raise NotImplementedError("model_transfer: model_device")


def move_model(model: nn.Module, device: str | torch.device) -> nn.Module:
    """Move every parameter and buffer of `model` to `device`, and return the same module object.

    `nn.Module.to(device)` works in place: it moves the parameters and the buffers of the model
    and of all its submodules, and returns `model` itself. Each Parameter stays the same Python
    object (its data is swapped for the moved data), so an optimizer built earlier, which holds
    references to those Parameters, still updates the model after the move.

    So do not copy the model (`copy.deepcopy(model).to(device)` is another object, with other
    Parameters), and do not move only `model.parameters()`: buffers must move too.
    (`tensor.to(device)` is not in place, unlike `Module.to`: it returns a new tensor.)
    """
    # TODO(model_transfer): one call moves everything; return the model you were given.
    raise NotImplementedError("model_transfer: move_model")


def train_step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    inputs: torch.Tensor,
    targets: torch.Tensor,
) -> float:
    """Run one training step on one batch, on the model's device, and return the loss.

    1. Move `inputs` and `targets` to the model's device (`model_device(model)`): the batch
       usually comes from a DataLoader on the CPU, and the model may be on a GPU.
    2. Forward: `outputs = model(inputs)`, then `loss = loss_fn(outputs, targets)`.
    3. `optimizer.zero_grad()`, then `loss.backward()`, then `optimizer.step()`.
       `backward()` adds to the gradients already in `.grad`; without `zero_grad()` first, each
       step would also use the gradients of every earlier batch (or of any earlier backward).
    4. Return the loss as a Python float, `loss.item()`, not a tensor: the loss tensor still
       refers to the step's autograd graph (a caller summing losses over an epoch would keep
       every graph alive), and on a GPU it lives on the GPU.
    """
    # TODO(model_transfer): batch to the model's device, forward, loss, zero_grad, backward, step.
    raise NotImplementedError("model_transfer: train_step")


def load_checkpoint(
    source: str | os.PathLike[str] | IO[bytes], model: nn.Module, device: str | torch.device
) -> nn.Module:
    """Load a state_dict from `source` (a path or an open binary file) into `model`, and return
    `model`, the same object, with everything on `device`.

    `torch.save` records the device of every tensor it writes, and `torch.load` puts each tensor
    back there by default. A checkpoint saved on a GPU host therefore fails to load on a machine
    without one ("Attempting to deserialize object on a CUDA device..."). Pass `map_location`
    so every tensor is loaded straight onto `device`, wherever it was saved. `device` may be
    any spelling ("cpu", "cpu:0", `torch.device("cuda", 0)`), and `map_location` does not take
    every spelling: check what it accepts.

    A checkpoint is a pickle, and unpickling can run any code the file asks for. Pass
    `weights_only=True` so torch only accepts tensors and plain containers and refuses
    anything else (with `pickle.UnpicklingError`): never load a checkpoint with
    `weights_only=False` unless you trust whoever made it.

    Then make sure the model is on `device` and load the state_dict into it with
    `model.load_state_dict(...)`, which copies the values into the existing Parameters.
    """
    # TODO(model_transfer): torch.load with map_location and weights_only, then load_state_dict.
    raise NotImplementedError("model_transfer: load_checkpoint")
