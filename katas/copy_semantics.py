"""Copy semantics: know when a tensor is copied, when it is shared, and when you get the very
same object back.

Whenever you "convert" a tensor, one of three things happens: you get the same object back
(nothing to do), a new tensor that shares memory with the old one (change one, and the other
changes too), or a new tensor with memory of its own (a copy). Each function below promises
one of them on purpose; getting the wrong one is a silent bug, or a slow one.

Write each function so that its docstring holds: the docstring is the contract.
Its page, with the task and the background you need: python -m katas docs copy_semantics

Check it:  python -m katas check copy_semantics
Stuck?     python -m katas hint copy_semantics   (one rung of the hint ladder at a time)
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import numpy as np
import torch


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when `a` and `b` use the same memory: their storages overlap, on the same device,
    whichever part of it each one views.

    A tensor whose storage is empty holds no memory, so it shares with nothing. Anything but
    two tensors raises TypeError.
    """
    # TODO(copy_semantics): write shares_memory; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: shares_memory")


def move(x: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """`x` on `device`: `x` itself when it is already there, else a copy there with the same
    values and dtype. `x` is never changed.

    Every name of a device counts as that device: `"cpu"`, `"cpu:0"` and `torch.device("cpu")`
    all name the one CPU, and a bare `"cuda"` names the current GPU. Moving a CPU tensor between
    names of the CPU never starts CUDA.

    `device` must exist in this process: `cpu` and `meta` with no index or index 0, or an
    accelerator (`cuda`, `mps`, ...) whose backend is available here, with an index below its
    device count. One that does not exist raises ValueError naming it; a string torch cannot
    parse raises ValueError quoting it. An `x` that is not a tensor, or a `device` that is
    neither a str nor a `torch.device`, raises TypeError.
    """
    # TODO(copy_semantics): write move; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: move")


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`: equal values, the same dtype, shape and device, memory of
    its own, and no part of the autograd graph (it does not require grad).

    Changing `x` in place later never shows in the snapshot, not even in its version counter
    (`_version`). It raises no warning; anything but a tensor raises TypeError.
    """
    # TODO(copy_semantics): write snapshot; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: snapshot")


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x`'s values as a numpy array, for a tensor on any device, of any dtype, that may
    require grad.

    A dtype numpy lacks (bfloat16, ...) comes back exactly, in a wider dtype (float32 for
    bfloat16); a lazy conjugate or negation is applied. With `copy=False`, when `x` needs no
    conversion (a strided CPU tensor of a dtype numpy has, with no lazy conjugate or
    negation), the array shares `x`'s memory. With `copy=True`, the array owns its memory.

    It raises no warning. A meta tensor (no values) raises ValueError; anything but a tensor
    raises TypeError naming its type.
    """
    # TODO(copy_semantics): write to_numpy; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: to_numpy")


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    """`a` as a CPU tensor with its values, shape and dtype (in this machine's byte order):
    sharing `a`'s memory with `copy=False`, owning a copy with `copy=True`.

    When torch cannot share `a` (negative strides, another byte order, a read-only array),
    `copy=False` raises ValueError suggesting `copy=True`, which still works. An array of a
    dtype torch lacks raises TypeError naming the dtype; anything but a numpy array raises
    TypeError naming its type.
    """
    # TODO(copy_semantics): write from_numpy; the docstring above is the contract.
    raise NotImplementedError("copy_semantics: from_numpy")
