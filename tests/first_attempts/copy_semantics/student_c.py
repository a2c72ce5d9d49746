"""Returns x itself when the target has no index and the type matches, or when x.device ==
target: 'cpu:0' gets a copy.

Written from: the kata page and the stub only.
Message: torch compares names

Written by a learner (a student after one PyTorch tutorial, who writes an attempt and lets the
checker answer instead of trying torch first) as a first attempt, before any check, on
2026-11-27; kept as written.
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
    """True when `a` and `b` use the same memory: the storages they view overlap.

    Bad arguments are refused by the given checks; sparse tensors are not asked about.
    """
    _check_tensor("shares_memory(a, b)", "a", a)
    _check_tensor("shares_memory(a, b)", "b", b)
    if a.device != b.device or a.device.type == "meta":
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if sa.nbytes() == 0 or sb.nbytes() == 0:
        return False
    start_a, start_b = sa.data_ptr(), sb.data_ptr()
    end_a, end_b = start_a + sa.nbytes(), start_b + sb.nbytes()
    return start_a < end_b and start_b < end_a


def move(x: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """`x` on `device`: `x` itself when it is already there; else a copy there, with the same
    values and dtype. `x` is never changed, and moving a CPU tensor to the CPU never starts
    CUDA.

    The given checks refuse a device that does not exist here, and bad arguments.
    """
    _check_tensor(f"move(x, {device!r})", "x", x)
    target = _existing(device, f"move(x, {device!r})")
    if target.index is None and target.type == x.device.type:
        # "cuda" means the current device; compare only the type then
        return x
    if x.device == target:
        return x
    return x.to(target)


def snapshot(x: torch.Tensor) -> torch.Tensor:
    """An independent copy of `x`: equal values, the same dtype, shape and device, and nothing
    done to `x` later shows in it. It is no part of the autograd graph, and taking it raises no
    warning.

    Bad arguments are refused by the given checks.
    """
    _check_tensor("snapshot(x)", "x", x)
    return x.detach().clone()


def to_numpy(x: torch.Tensor, *, copy: bool = False) -> np.ndarray:
    """`x`'s values, exactly, as a numpy array: for a tensor on any device, of any dtype, that
    may require grad.

    With `copy=False`, the array shares `x`'s memory whenever numpy can view that memory as `x`'s
    values; with `copy=True`, the array owns its memory. It raises no warning.

    The given checks refuse a meta tensor (it holds no values) and bad arguments.
    """
    _check_tensor("to_numpy(x)", "x", x)
    if x.device.type == "meta":
        raise ValueError(f"to_numpy(x): x is on the meta device, which holds no values ({x!r})")
    t = x.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    if t.device.type != "cpu":
        t = t.cpu()  # already a copy
    try:
        arr = t.numpy()
    except (TypeError, RuntimeError):
        # numpy has no such dtype (e.g. bfloat16): use one that holds the values exactly
        if t.is_complex():
            arr = t.to(torch.complex64).numpy()
        elif t.is_floating_point():
            arr = t.to(torch.float32).numpy()
        else:
            arr = t.to(torch.int64).numpy()
        return arr
    if copy:
        arr = arr.copy()
    return arr


def from_numpy(a: np.ndarray, *, copy: bool = False) -> torch.Tensor:
    """`a` as a CPU tensor with its values, shape and dtype: sharing `a`'s memory with
    `copy=False`, owning a copy with `copy=True`.

    When a tensor cannot safely share `a`'s memory, `copy=False` raises ValueError suggesting
    `copy=True`, which always works. Bad arguments are refused by the given checks.
    """
    if not isinstance(a, np.ndarray):
        hint = " (it is a tensor already)" if isinstance(a, torch.Tensor) else ""
        raise TypeError(f"from_numpy(a): a must be a numpy.ndarray, not {type(a).__name__}{hint}")
    try:  # torch knows bool, ints, floats and complex; not str, object, datetime...
        torch.from_numpy(np.empty(0, dtype=a.dtype.newbyteorder("=")))
    except TypeError:
        raise TypeError(f"from_numpy(a): torch has no dtype for numpy's {a.dtype}") from None
    if copy:
        b = np.array(a, dtype=a.dtype.newbyteorder("="), order="C", copy=True)
        return torch.from_numpy(b)
    suggestion = "; use from_numpy(a, copy=True)"
    if not a.flags.writeable:
        raise ValueError("from_numpy(a): a is read-only, a tensor could write to it" + suggestion)
    if not a.dtype.isnative:
        raise ValueError("from_numpy(a): a is not in this machine's byte order" + suggestion)
    try:
        return torch.from_numpy(a)
    except (ValueError, TypeError, RuntimeError) as e:
        raise ValueError(f"from_numpy(a): torch cannot view a's memory ({e})" + suggestion) from None
