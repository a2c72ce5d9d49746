"""Copy semantics: know when a tensor is copied, when it is shared, and when you get the very
same object back.

Moving data costs time (a trip across the PCIe bus for a GPU) and sharing data costs safety (a
change through one name shows through the other). Read docs/katas/copy_semantics.md, then fill
in each function.

Check it:  python -m katas check copy_semantics
Stuck?     python -m katas hint copy_semantics
(`nox -s learn` watches your files and re-checks on every save.)
"""

from __future__ import annotations

import numpy as np
import torch


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when the tensors `a` and `b` use the same underlying storage.

    A tensor is a window (shape, strides, offset) onto a storage, a flat block of bytes. Views,
    slices, `detach()`, and two `torch.from_numpy` calls on one array all give tensors over the
    same memory, so writing through one changes the other.

    - Slices count even when they do not overlap: `x[:2]` and `x[2:]` share memory here
      (unlike `numpy.shares_memory`, which looks at elements).
    - Tensors on different devices never share memory.
    - A storage of zero bytes (say, `torch.empty(0)`) is an empty byte range: it overlaps
      nothing, so it shares memory with no tensor, whatever its pointer.

    >>> x = torch.arange(6)
    >>> shares_memory(x, x[2:]), shares_memory(x, x.clone())
    (True, False)
    """
    # TODO(copy_semantics): compare the storages, not where each tensor starts.
    raise NotImplementedError("copy_semantics: shares_memory")


def move(x: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """Put `x` on `device`, copying only when it is somewhere else.

    - When `x` is already there, return `x` itself (the same object, no copy), however the
      device is spelled: "cpu", "cpu:0", torch.device("cpu") and torch.device("cpu", 0) all
      mean the one CPU. Beware: `x.to("cpu:0")` copies, because torch compares the device
      `cpu:0` with `x.device`, which is `cpu`.
    - "cuda" (no index) means the current GPU, `torch.cuda.current_device()`. Ask CUDA only
      when `x` is on CUDA already: a move between CPU spellings must never touch CUDA. (That
      would start CUDA, which takes time and GPU memory, and afterwards the children this
      process forks, such as DataLoader workers, can no longer use CUDA.)
    - A device string torch cannot parse raises ValueError quoting it between quote marks (as
      `f"{device!r}"` does).
    - On another device, return a tensor equal to `x` there, with the same dtype.
    """
    # TODO(copy_semantics): parse the device, fill in a missing index, then compare.
    raise NotImplementedError("copy_semantics: move")


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`, to keep while `x` goes on changing.

    The snapshot has equal values, the same dtype and device, and `requires_grad=False`. It:
    - shares no memory with `x`, so later in-place changes to `x` never show in it;
    - is cut from `x`'s autograd graph (no `grad_fn`), so it keeps nothing alive for backward;
    - raises no warning (`torch.tensor(x)` warns, and says what to use instead).
    """
    # TODO(copy_semantics): one call cuts the graph, another owns the memory.
    raise NotImplementedError("copy_semantics: snapshot")


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x` as a numpy array, for any tensor: one that requires grad, one on a GPU, any dtype.

    A tensor "needs no conversion" when it is a CPU tensor, strided (not sparse), with a dtype
    numpy has, and no conjugate or negative bit set (lazy flags left by `x.conj()` on complex
    tensors). Requiring grad does not count: `detach()` is free and shares memory.

    - `copy=False`: a tensor that needs no conversion shares memory with the array, like
      `x.numpy()` (views and non-contiguous tensors too: numpy understands strides). Anything
      else is converted, which copies: a GPU tensor comes to the CPU; bfloat16 (numpy has no
      such dtype) becomes float32, which holds every bfloat16 value exactly; conjugate and
      negative bits are resolved.
    - `copy=True`: the array never shares memory with `x`. Copy once: if a conversion already
      made new memory, do not copy again.
    - A meta tensor holds no values: raise ValueError. Anything that is not a tensor raises
      TypeError naming its type.
    """
    # TODO(copy_semantics): detach, then convert only what numpy cannot take; copy if asked.
    raise NotImplementedError("copy_semantics: to_numpy")


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    """`a` as a CPU tensor that shares memory with `a` (`copy=False`) or owns a copy (`copy=True`).

    Sharing is what `torch.from_numpy` does, and it needs three things torch supports:
    non-negative strides (`a[::-1]` has a negative one), the machine's byte order, and a
    writable array (tensors are always writable; `torch.from_numpy` only warns). When one is
    missing, `copy=False` raises ValueError saying what and suggesting copy=True, as numpy 2
    does for `np.asarray(a, copy=False)`; `copy=True` still works, without a warning.

    Anything that is not a numpy.ndarray, or an array of a dtype torch does not have (strings,
    objects, dates), raises TypeError naming its type or dtype.
    """
    # TODO(copy_semantics): torch.from_numpy shares; decide what to copy and what to refuse.
    raise NotImplementedError("copy_semantics: from_numpy")
