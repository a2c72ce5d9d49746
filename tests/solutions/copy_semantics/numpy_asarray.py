"""Converts to numpy with `np.asarray` (which shares, through `Tensor.__array__`) and copies
with `ndarray.copy()`; from numpy with `torch.as_tensor`; checks overlap as `max(start) <
min(end)`; snapshots with `empty_like` and `copy_` under `no_grad`.
"""

from __future__ import annotations

import numpy as np
import torch

NUMPY_LACKS = {torch.bfloat16: torch.float32, torch.complex32: torch.complex64}


def _tensor(name: str, value) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a tensor, got {type(value).__name__}")
    return value


def shares_memory(a, b):
    a, b = _tensor("a", a), _tensor("b", b)
    if a.device != b.device or a.device.type == "meta":
        return False
    ranges = []
    for t in (a, b):
        storage = t.untyped_storage()
        ranges.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes()))
    (a0, a1), (b0, b1) = ranges
    return max(a0, b0) < min(a1, b1)


def _count(kind: str) -> int:
    if kind in ("cpu", "meta"):
        return 1
    if kind == "cuda":
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    current = torch.accelerator.current_accelerator(check_available=True)
    return torch.accelerator.device_count() if current and current.type == kind else 0


def move(x, device):
    x = _tensor("x", x)
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be a str or torch.device, got {type(device).__name__}")
    try:
        target = torch.device(device)
    except RuntimeError:
        raise ValueError(f"move: {device!r} is not a device") from None
    if (target.index or 0) >= _count(target.type):
        raise ValueError(f"move: no device {target} here")
    if target.type != x.device.type:
        return x.to(target)
    if target.index is None:  # "cpu", "meta", or "cuda" meaning the current GPU, where x is
        if target.type == "cuda":
            target = torch.device("cuda", torch.cuda.current_device())
        else:
            return x
    return x if (x.device.index or 0) == target.index else x.to(target)


def snapshot(x):
    x = _tensor("x", x)
    with torch.no_grad():
        out = torch.empty_like(x, requires_grad=False)
        out.copy_(x)
    return out


def to_numpy(x, *, copy=False):
    x = _tensor("x", x)
    if x.is_meta:
        raise ValueError("to_numpy: a meta tensor has no values")
    t = x.detach()
    source = t
    if t.layout != torch.strided:
        t = t.to_dense()
    t = t.cpu()
    if t.dtype in NUMPY_LACKS:
        t = t.to(NUMPY_LACKS[t.dtype])
    t = t.resolve_conj().resolve_neg()
    array = np.asarray(t)
    if copy and t.untyped_storage().data_ptr() == source.untyped_storage().data_ptr():
        array = array.copy()
    return array


def from_numpy(a, *, copy=False):
    if not isinstance(a, np.ndarray):
        raise TypeError(f"from_numpy wants a numpy.ndarray, got {type(a).__name__}")
    native = a.dtype.newbyteorder("=")
    try:
        torch.as_tensor(np.zeros(0, dtype=native))
    except TypeError:
        raise TypeError(f"from_numpy: torch has no dtype for {a.dtype}") from None
    if copy:
        return torch.as_tensor(a.astype(native, copy=True))
    if min(a.strides, default=0) < 0 or a.dtype.byteorder not in "=|" or not a.flags.writeable:
        raise ValueError("from_numpy: torch cannot share this array; use copy=True")
    return torch.as_tensor(a)
