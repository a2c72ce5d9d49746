"""A learner's first attempt, written from the kata page and the stub alone, before any check
(issue 25's measurement, kept as written): it decides sharing by whether the two storages' byte
ranges overlap, and compares devices by type and index.
"""

from __future__ import annotations

import numpy as np
import torch


def _check_tensor(function: str, name: str, value: object) -> None:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{function}: {name} must be a torch.Tensor, not {type(value).__name__}")


def _count(kind: str) -> int:
    """How many devices of the accelerator type `kind` this process can use (0: none)."""
    if kind in ("cpu", "meta"):
        return 1
    if kind == "cuda":
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == kind:
            return torch.accelerator.device_count()
    return 0


def _existing(device: object, call: str) -> torch.device:
    """`device` (a str or a `torch.device`) as a `torch.device` that exists in this process
    (kata 1's question), or the ValueError or TypeError that `move` promises."""
    if isinstance(device, str):
        try:
            target = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{call}: not a device torch understands; try 'cpu' or 'cuda:0'"
            ) from None
    elif isinstance(device, torch.device):
        target = device
    else:
        raise TypeError(
            f"{call}: device must be a str or a torch.device, not {type(device).__name__}"
        )
    index, n = target.index or 0, _count(target.type)
    if index >= n:
        names = ", ".join(f"{target.type}:{k}" for k in range(n))
        has = f"{n} {target.type} device(s) ({names})" if n else f"no {target.type} device"
        raise ValueError(
            f"{call}: there is no {target.type}:{index} in this process, which has {has}"
        )
    return target


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when `a` and `b` use the same memory: their storages overlap, on the same device,
    whichever part of it each one views.

    A tensor whose storage is empty, and a tensor on `meta` (shapes, no data), holds no memory,
    so it shares with nothing. Anything but two tensors raises TypeError (that check is written
    for you); sparse tensors are not asked about.
    """
    _check_tensor("shares_memory(a, b)", "a", a)
    _check_tensor("shares_memory(a, b)", "b", b)
    if a.device != b.device or a.device.type == "meta":
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    na, nb = sa.nbytes(), sb.nbytes()
    if na == 0 or nb == 0:
        return False
    start_a, start_b = sa.data_ptr(), sb.data_ptr()
    # two byte ranges [start, start + n) overlap when each starts before the other ends
    return start_a < start_b + nb and start_b < start_a + na


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
    neither a str nor a `torch.device`, raises TypeError. (These checks are written for you.)
    """
    _check_tensor(f"move(x, {device!r})", "x", x)
    target = _existing(device, f"move(x, {device!r})")
    if target.type != x.device.type:
        return x.to(target)
    if target.type in ("cpu", "meta"):
        return x  # only one cpu and one meta device, whatever the spelling
    index = target.index
    if index is None:  # a bare "cuda" (or "mps"...) is the current device of that type
        if target.type == "cuda":
            index = torch.cuda.current_device()
        else:
            index = torch.accelerator.current_device_index()
    if x.device.index == index:
        return x
    return x.to(torch.device(target.type, index))


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`: equal values, the same dtype, shape and device, memory of
    its own, and no part of the autograd graph (it does not require grad).

    Changing `x` in place later never shows in the snapshot, not even in its version counter
    (`_version`). It raises no warning; anything but a tensor raises TypeError (that check is
    written for you).
    """
    _check_tensor("snapshot(x)", "x", x)
    # detach first (so the copy is not recorded in the graph), then clone: new memory and a
    # fresh version counter. torch.tensor(x) would also copy, but it warns.
    return x.detach().clone()


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x`'s values as a numpy array, for a tensor on any device, that may require grad, of a
    dtype numpy has (bool, integers, floating point, complex) or bfloat16.

    bfloat16, which numpy lacks, comes back exactly, in a wider dtype (float32); a lazy
    conjugate or negation is applied.
    With `copy=False`, when `x` needs no conversion (a strided CPU tensor of a dtype numpy
    has, with no lazy conjugate or negation), the array shares `x`'s memory. With `copy=True`,
    the array owns its memory.

    It raises no warning. A meta tensor (no values) raises ValueError; anything but a tensor
    raises TypeError naming its type. (These two checks are written for you.)
    """
    _check_tensor("to_numpy(x)", "x", x)
    if x.device.type == "meta":
        raise ValueError(f"to_numpy(x): x is on the meta device, which holds no values ({x!r})")
    t = x.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()  # every bfloat16 value is exactly a float32
    t = t.resolve_conj().resolve_neg()
    array = t.numpy()
    if copy:
        array = array.copy()
    return array


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    """`a` as a CPU tensor with its values, shape and dtype (in this machine's byte order):
    sharing `a`'s memory with `copy=False`, owning a copy with `copy=True`.

    When torch cannot share `a` (negative strides, another byte order, a read-only array),
    `copy=False` raises ValueError suggesting `copy=True`, which still works. An array of a
    dtype torch lacks raises TypeError naming the dtype; anything but a numpy array raises
    TypeError naming its type. (These two TypeErrors are written for you.)
    """
    if not isinstance(a, np.ndarray):
        hint = " (it is a tensor already)" if isinstance(a, torch.Tensor) else ""
        raise TypeError(f"from_numpy(a): a must be a numpy.ndarray, not {type(a).__name__}{hint}")
    try:  # torch knows bool, ints, floats and complex; not str, object, datetime...
        torch.from_numpy(np.empty(0, dtype=a.dtype.newbyteorder("=")))
    except TypeError:
        raise TypeError(f"from_numpy(a): torch has no dtype for numpy's {a.dtype}") from None
    if copy:
        # np.array(..., copy=True) always makes a new, writable, C-ordered array in native byte
        # order, which torch can then view.
        owned = np.array(a, dtype=a.dtype.newbyteorder("="), order="C", copy=True)
        return torch.from_numpy(owned)
    if not a.flags.writeable:
        raise ValueError(
            "from_numpy(a): a is read-only and torch tensors cannot be read-only; "
            "use copy=True to get a tensor with its own copy"
        )
    if not a.dtype.isnative:
        raise ValueError(
            f"from_numpy(a): a has byte order {a.dtype.byteorder!r}, not this machine's; "
            "torch cannot share it, use copy=True"
        )
    if any(stride < 0 for stride in a.strides):
        raise ValueError(
            f"from_numpy(a): a has negative strides {a.strides}, which torch cannot view; "
            "use copy=True"
        )
    try:
        return torch.from_numpy(a)
    except ValueError as error:
        raise ValueError(f"from_numpy(a): torch cannot share a ({error}); use copy=True") from None
