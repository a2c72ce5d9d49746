"""Checkpoints for the model_transfer kata, made in memory on any machine (no GPU needed).

- `cuda_tagged_checkpoint(state_dict)`: the bytes `torch.save` would write on a GPU host, with
  every storage tagged `cuda:0`. A plain `torch.load` of them on a CPU-only host raises
  "Attempting to deserialize object on a CUDA device"; `map_location` loads them anywhere.
- `code_running_checkpoint(state_dict)`: a checkpoint whose unpickling calls a function (a
  harmless one that records the call in `TRIPPED`). `weights_only=True` refuses it.

The tests and the kata's page both import these, so no binary file is kept in git. To get a
file to play with: `python -m tests.data.model_transfer.make_checkpoint gpu_checkpoint.pt`.

How the `cuda:0` tag is made: `torch.save` pickles each storage as a "persistent id", the tuple
`("storage", storage_type, key, location, numel)`, where `location` is the storage's device
(`torch.serialization.location_tag`). `torch.save(..., pickle_module=m)` pickles with
`m.Pickler`; torch subclasses it and defines `persistent_id` itself, so we hook the step after:
the pure-Python pickler passes every persistent id to `save_pers`, where we rewrite the
location. The tensor bytes are written unchanged.
"""

from __future__ import annotations

import copy
import io
import pickle
import sys
import types

import torch
from torch import nn

TRIPPED: list[str] = []
"""One entry per time a `code_running_checkpoint` ran its code while being loaded."""


class _RetaggingPickler(pickle._Pickler):  # the pure-Python pickler calls save_pers
    location = "cuda:0"

    def save_pers(self, pid):
        if isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage":
            kind, storage_type, key, _location, numel = pid
            pid = (kind, storage_type, key, self.location, numel)
        super().save_pers(pid)


def cuda_tagged_checkpoint(state_dict: dict, location: str = "cuda:0") -> bytes:
    """What `torch.save(state_dict, f)` writes on a GPU host where the tensors sit on `location`."""
    pickler = type("_Pickler", (_RetaggingPickler,), {"location": location})
    pickle_module = types.ModuleType(f"pickle_tagging_{location.replace(':', '_')}")
    pickle_module.Pickler = pickler
    buffer = io.BytesIO()
    torch.save(state_dict, buffer, pickle_module=pickle_module)
    return buffer.getvalue()


def _tripwire(tensor: torch.Tensor) -> torch.Tensor:
    """Stands for any code a pickle can run: it records that it ran, then returns the tensor."""
    TRIPPED.append(f"ran while loading a tensor of shape {tuple(tensor.shape)}")
    return tensor


class _RunsCodeWhenLoaded:
    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor

    def __reduce__(self):  # unpickling calls _tripwire(tensor)
        return (_tripwire, (self.tensor,))


def code_running_checkpoint(state_dict: dict) -> bytes:
    """A checkpoint of `state_dict` whose first entry calls `_tripwire` when it is unpickled.

    With `weights_only=False` it loads (running the code) and gives back the same state_dict;
    with `weights_only=True` torch refuses it with `pickle.UnpicklingError`.
    """
    rigged = copy.copy(state_dict)  # keeps `_metadata`
    first = next(iter(rigged))
    rigged[first] = _RunsCodeWhenLoaded(rigged[first])
    buffer = io.BytesIO()
    torch.save(rigged, buffer)
    return buffer.getvalue()


def example_model() -> nn.Module:
    """A small model with parameters and buffers (BatchNorm's running statistics)."""
    return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 2))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.data.model_transfer.make_checkpoint OUT.pt", file=sys.stderr)
        return 2
    with open(argv[0], "wb") as f:
        f.write(cuda_tagged_checkpoint(example_model().state_dict()))
    print(f"wrote {argv[0]}: example_model()'s state_dict, every storage tagged cuda:0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
