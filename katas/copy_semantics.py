"""Copy semantics: know when a tensor is copied, when it is shared, and when you get the very
same object back.

Three outcomes are possible whenever you "convert" a tensor: the same object (nothing to do),
a new tensor that shares memory with the old one (a view, `detach()`, `numpy()`), or a new
tensor with its own memory (a copy). Each function below picks one on purpose.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the ideas and experiments: python -m katas docs copy_semantics

Check it:  python -m katas check copy_semantics
Stuck?     python -m katas hint copy_semantics   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import numpy as np
import torch


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when `a` and `b` use the same memory: the same storage, on the same device.

    Compare storages, not `data_ptr()`: a slice starts elsewhere in the same storage. An empty
    storage holds no memory, so it shares nothing.
    """
    # TODO(copy_semantics): write shares_memory; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: shares_memory")


def move(x: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """Put `x` on `device`: `x` itself when it is already there, else a copy there.

    "cpu", "cpu:0" and torch.device("cpu") all name the one CPU, and "cuda" names the current
    GPU, so compare type and index after filling in the missing index.
    """
    # TODO(copy_semantics): write move; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: move")


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`: equal values, same dtype and device, out of the graph.

    `detach()` cuts the graph but shares memory and the version counter; `clone()` owns its
    memory but stays in the graph. Together they give a snapshot.
    """
    # TODO(copy_semantics): write snapshot; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: snapshot")


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x` as a numpy array, for any tensor.

    A strided CPU tensor whose dtype numpy has, without a conjugate or negative bit, needs no
    conversion: with `copy=False` the array shares its memory. Otherwise each step that is
    needed (detach, to the CPU, to a wider dtype, resolve the bits) runs, and copies at most
    once. `copy=True` always gives an array that owns its memory.
    """
    # TODO(copy_semantics): write to_numpy; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: to_numpy")


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    """`a` as a CPU tensor: sharing its memory (`copy=False`) or owning a copy (`copy=True`).

    Sharing needs what torch supports: non-negative strides, the machine's byte order and a
    writable array. When one is missing, `copy=False` raises ValueError (as numpy 2 does for
    `np.asarray(a, copy=False)`), and `copy=True` still works.
    """
    # TODO(copy_semantics): write from_numpy; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: from_numpy")
